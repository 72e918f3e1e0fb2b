package io.pointsinbox.messaging;

import java.util.logging.Level;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.pointsinbox.config.DefaultConcurrency;
import io.pointsinbox.config.PointsConfig;
import io.quarkus.runtime.StartupEvent;

/**
 * Says at start-up how deliveries will run. From Java 21 each delivery runs on a virtual thread; on Java 17 Quarkus
 * runs them on its worker threads instead, and would say so with a warning at the first delivery ("You weren't able
 * to create an executor that spawns virtual threads ... please check that your JDK is compatible") that reads like a
 * fault. On Java 17 that is the expected behaviour of a supported JDK, so the line below states it at start-up and
 * Quarkus's warning is left out, unless its category has a level of its own in the configuration.
 */
@ApplicationScoped
public class DeliveryThreads {

    /** The category of Quarkus's fallback warning. */
    static final String FALLBACK_CATEGORY = "io.quarkus.virtual-threads";

    private static final Logger LOG = Logger.getLogger(DeliveryThreads.class);

    // Held so that the level set on it stays with the category.
    private static java.util.logging.Logger fallbackLogger;

    void describe(@Observes StartupEvent event, PointsConfig config) {
        int feature = Runtime.version().feature();
        if (!DefaultConcurrency.virtualThreads(feature)) {
            java.util.logging.Logger logger = java.util.logging.Logger.getLogger(FALLBACK_CATEGORY);
            if (logger.getLevel() == null) {
                logger.setLevel(Level.SEVERE);
                fallbackLogger = logger;
            }
        }
        LOG.info(line(feature, config.consumer(), config.concurrency()));
    }

    static String line(int javaFeature, String consumer, int concurrency) {
        String where = DefaultConcurrency.virtualThreads(javaFeature) ? "each on a virtual thread"
                : "on Quarkus's worker threads (Java " + javaFeature + "; virtual threads need Java 21 or later)";
        return "Consuming channel " + PointsGrantedConsumer.CHANNEL + " as consumer '" + consumer + "': up to "
                + concurrency + " deliveries at once, " + where;
    }
}
