package io.pointsinbox.messaging;

import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import io.quarkus.logging.LoggingFilter;

/**
 * Drops the AMQP connector's "connection failure: Connection disconnected" error when it reports the service's own
 * connection closing during a graceful stop. That line came at the end of some rolling restarts, an ERROR for
 * nothing that went wrong; the same line while the service runs (the broker really went away) is kept.
 */
@LoggingFilter(name = ShutdownDisconnectFilter.NAME)
public final class ShutdownDisconnectFilter implements Filter {

    public static final String NAME = "points-shutdown-disconnect";

    private static volatile boolean stopping;

    /** Called by {@link ConsumptionSwitch} when shutdown begins. */
    static void stopping() {
        stopping = true;
    }

    /** Called by {@link ConsumptionSwitch} at start-up (a JVM may start the application again, as tests do). */
    static void running() {
        stopping = false;
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        return !(stopping
                && record.getLevel().intValue() >= Level.SEVERE.intValue()
                && record.getLoggerName() != null
                && record.getLoggerName().startsWith("io.smallrye.reactive.messaging.amqp")
                && record.getMessage() != null
                && record.getMessage().contains("SRMSG16214")
                && record.getThrown() != null
                && "Connection disconnected".equals(record.getThrown().getMessage()));
    }
}
