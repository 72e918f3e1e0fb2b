package io.pointsinbox.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How long the inbox remembers a message id, and what the service knows of the redelivery budget that the window
 * must outlast: a duplicate arriving after its inbox row is gone would be applied again.
 */
@ConfigMapping(prefix = "points.retention")
public interface RetentionConfig {

    /** Whether the scheduled cleanup runs on this instance (POINTS_RETENTION_ENABLED). */
    @WithDefault("true")
    boolean enabled();

    /**
     * Inbox rows older than this are deleted, and messages older than this are refused; above zero
     * (POINTS_RETENTION_WINDOW).
     */
    @WithDefault("7d")
    Duration window();

    /** How often the cleanup runs (POINTS_RETENTION_CLEANUP_INTERVAL). */
    @WithDefault("10m")
    String cleanupInterval();

    /** Rows deleted per statement, to keep each delete short; 1 to 100,000 (POINTS_RETENTION_BATCH_SIZE). */
    @WithDefault("1000")
    int batchSize();

    /** The broker's max-delivery-attempts, at least 1 (POINTS_RETENTION_BROKER_MAX_DELIVERY_ATTEMPTS). */
    @WithDefault("10")
    int brokerMaxDeliveryAttempts();

    /** The broker's longest delay between two deliveries (POINTS_RETENTION_BROKER_MAX_REDELIVERY_DELAY). */
    @WithDefault("60s")
    Duration brokerMaxRedeliveryDelay();

    /** How long after dead-lettering a message may still be re-driven (POINTS_RETENTION_REDRIVE_HORIZON). */
    @WithDefault("3d")
    Duration redriveHorizon();

    /** The longest a duplicate of an applied message can take to arrive, as far as the service can know. */
    default Duration redeliveryBudget() {
        return brokerMaxRedeliveryDelay().multipliedBy(brokerMaxDeliveryAttempts()).plus(redriveHorizon());
    }
}
