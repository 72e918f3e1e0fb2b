package io.pointsinbox.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Typed settings of the points inbox; every one can be set by environment variable. The bounds given here are
 * checked while the configuration is built, by {@link SettingsValidator}.
 */
@ConfigMapping(prefix = "points")
public interface PointsConfig {

    /**
     * The logical consumer name: the first half of the idempotency key; 1 to 100 lower-case letters, digits, '.', '_'
     * or '-' (POINTS_CONSUMER).
     */
    @WithDefault("points-ledger")
    String consumer();

    /** The AMQP address the messages are consumed from, not blank (POINTS_ADDRESS). */
    @WithDefault("points-granted")
    String address();

    /** Upper bound of one message's amount, 1 to 10^9; anything larger is poison (POINTS_MAX_AMOUNT). */
    @WithDefault("1000000")
    long maxAmount();

    /**
     * The largest message read from the broker, in bytes as encoded on the wire (body, properties and annotations),
     * from 17408 (the 16 KiB body limit and 1 KiB for the rest) to 67108864; a larger one is rejected while it
     * arrives, unread, and the broker moves it to its dead-letter address (POINTS_MAX_MESSAGE_SIZE). The default
     * keeps a full prefetch window of messages at this size within the recommended 48 MiB heap.
     */
    @WithDefault("20480")
    int maxMessageSize();

    /**
     * Messages the broker may send ahead on the inbound link, 1 to 1000 (POINTS_LINK_CREDIT): the link credit. An
     * instance whose workers are behind holds this many received messages plus about 400 in the AMQP connector's own
     * queues, each whole in memory, so this and {@link #maxMessageSize()} together size the heap. The connector would
     * grant 1000 and has no setting for it.
     */
    @WithDefault("256")
    int linkCredit();

    /**
     * Messages processed concurrently by this instance, 1 to 256 (POINTS_CONCURRENCY); unset, 16 on Java 21+ and 8 on
     * Java 17 ({@link DefaultConcurrency}).
     */
    @WithDefault("16")
    int concurrency();

    /**
     * While the database is unreachable, consumption is paused and the database probed this often; above zero
     * (POINTS_DATABASE_RETRY_INTERVAL).
     */
    @WithDefault("1s")
    java.time.Duration databaseRetryInterval();

    /** Where poison messages are forwarded, with their reason; not blank (POINTS_DEAD_LETTER_ADDRESS). */
    @WithDefault("DLQ")
    String deadLetterAddress();

    /**
     * How long a poison message waits for the broker to confirm its dead-letter copy; past it the delivery is handed
     * back for redelivery instead of holding a worker (POINTS_DEAD_LETTER_TIMEOUT).
     */
    @WithDefault("10s")
    java.time.Duration deadLetterTimeout();

    /**
     * How long an AMQP connection may go without a frame from the broker before it is closed and opened again: the
     * broker is asked to send one at least this often, and a silent broker is noticed; 0 switches it off, otherwise
     * from 2s to 1h (POINTS_BROKER_IDLE_TIMEOUT).
     */
    @WithDefault("30s")
    java.time.Duration brokerIdleTimeout();

    /**
     * How long the inbound channel may hold deliveries unsettled while none runs and none starts before consumption
     * counts as stalled and liveness goes down, so that the pod is restarted; 0 switches it off, otherwise from 5s to
     * 1h (POINTS_STALL_TIMEOUT).
     */
    @WithDefault("60s")
    java.time.Duration stallTimeout();

    /**
     * A PEM file of the CA certificates the broker's TLS certificate must chain to, for both AMQP connections and
     * nothing else in the service; unset, the JVM's trust store decides. Only with {@code amqp-use-ssl=true}
     * (POINTS_BROKER_TRUST_CERTIFICATES).
     */
    java.util.Optional<String> brokerTrustCertificates();

    /**
     * Longest wait for any read from the database before the connection is closed and the statement fails: a database
     * that falls silent is noticed; 0 switches it off, otherwise from 1s to 1h and above the transaction timeout
     * (POINTS_DATABASE_SOCKET_TIMEOUT).
     */
    @WithDefault("90s")
    java.time.Duration databaseSocketTimeout();
}
