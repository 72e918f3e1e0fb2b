package io.pointsinbox.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Batched mode: the grants that arrive while a transaction is running are applied together in the next one, each
 * acknowledged only after that commit. Off by default: one message, one transaction.
 */
@ConfigMapping(prefix = "points.batch")
public interface BatchConfig {

    /** Whether AMQP grants are applied in batches (POINTS_BATCH_ENABLED). */
    @WithDefault("false")
    boolean enabled();

    /**
     * Most messages in one transaction, 1 to 1000 (POINTS_BATCH_MAX_SIZE). A batch also never holds more than
     * POINTS_CONCURRENCY messages: each waits on a worker until its batch commits.
     */
    @WithDefault("100")
    int maxSize();

    /**
     * Transactions running batches at the same time, 1 to 16; each holds up to two connections
     * (POINTS_BATCH_THREADS).
     */
    @WithDefault("2")
    int threads();
}
