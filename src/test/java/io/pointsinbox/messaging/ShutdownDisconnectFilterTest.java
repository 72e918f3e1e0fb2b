package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.logging.Level;
import java.util.logging.LogRecord;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The connector's disconnect error is dropped only once shutdown has begun, and nothing else is. */
class ShutdownDisconnectFilterTest {

    private final ShutdownDisconnectFilter filter = new ShutdownDisconnectFilter();

    @AfterEach
    void running() {
        ShutdownDisconnectFilter.running();
    }

    @Test
    void dropsTheDisconnectErrorOnlyDuringShutdown() {
        assertTrue(filter.isLoggable(disconnect("Connection disconnected")),
                "while running, a lost broker is an error");
        ShutdownDisconnectFilter.stopping();
        assertFalse(filter.isLoggable(disconnect("Connection disconnected")), "the service's own close, at shutdown");
        ShutdownDisconnectFilter.running();
        assertTrue(filter.isLoggable(disconnect("Connection disconnected")), "started again: logged again");
    }

    @Test
    void keepsEveryOtherLineDuringShutdown() {
        ShutdownDisconnectFilter.stopping();
        assertTrue(filter.isLoggable(disconnect("Connection refused")), "another cause of the same message");
        LogRecord other = new LogRecord(Level.SEVERE, "SRMSG16205: Unable to retrieve messages from AMQP");
        other.setLoggerName("io.smallrye.reactive.messaging.amqp");
        other.setThrown(new Exception("Connection disconnected"));
        assertTrue(filter.isLoggable(other), "another message of the connector");
        LogRecord ours = new LogRecord(Level.SEVERE, "SRMSG16214: AMQP Connection failure");
        ours.setLoggerName("io.pointsinbox.messaging.ConsumptionSwitch");
        ours.setThrown(new Exception("Connection disconnected"));
        assertTrue(filter.isLoggable(ours), "another logger");
        LogRecord warning = disconnect("Connection disconnected");
        warning.setLevel(Level.WARNING);
        assertTrue(filter.isLoggable(warning), "only errors are dropped");
    }

    private static LogRecord disconnect(String cause) {
        LogRecord record = new LogRecord(Level.SEVERE,
                "SRMSG16214: AMQP Connection failure [Error Occurred After Shutdown]");
        record.setLoggerName("io.smallrye.reactive.messaging.amqp");
        record.setThrown(new Exception(cause));
        return record;
    }
}
