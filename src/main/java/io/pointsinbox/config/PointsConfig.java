package io.pointsinbox.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/** Typed, start-up-validated settings of the points inbox; every one can be set by environment variable. */
@ConfigMapping(prefix = "points")
public interface PointsConfig {

    /** The logical consumer name: the first half of the idempotency key (POINTS_CONSUMER). */
    @WithDefault("points-ledger")
    @NotBlank
    @Size(max = 100)
    @Pattern(regexp = "[a-z0-9][a-z0-9._-]*", message = "must be lower-case letters, digits, '.', '_' or '-'")
    String consumer();

    /** The AMQP address the messages are consumed from (POINTS_ADDRESS). */
    @WithDefault("points-granted")
    @NotBlank
    String address();

    /** Upper bound of one message's amount; anything larger is poison (POINTS_MAX_AMOUNT). */
    @WithDefault("1000000")
    @Min(1)
    @Max(1_000_000_000)
    long maxAmount();

    /** Messages processed concurrently by this instance (POINTS_CONCURRENCY). */
    @WithDefault("8")
    @Min(1)
    @Max(256)
    int concurrency();

    /** While the database is unreachable, consumption is paused and the database probed this often (POINTS_DATABASE_RETRY_INTERVAL). */
    @WithDefault("1s")
    java.time.Duration databaseRetryInterval();

    /** Where poison messages are forwarded, with their reason (POINTS_DEAD_LETTER_ADDRESS). */
    @WithDefault("DLQ")
    @NotBlank
    String deadLetterAddress();

    /**
     * How long a poison message waits for the broker to confirm its dead-letter copy; past it the delivery is handed
     * back for redelivery instead of holding a worker (POINTS_DEAD_LETTER_TIMEOUT).
     */
    @WithDefault("10s")
    java.time.Duration deadLetterTimeout();
}
