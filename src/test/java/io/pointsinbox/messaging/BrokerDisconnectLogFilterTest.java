package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.logging.Level;
import java.util.logging.LogRecord;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connector's reports of a lost broker connection become one WARN line while the service runs, its report of
 * the service's own connection closing is dropped during a graceful stop, and nothing else is touched.
 */
class BrokerDisconnectLogFilterTest {

    private static final String CONNECTOR = "io.smallrye.reactive.messaging.amqp";

    private final BrokerDisconnectLogFilter filter = new BrokerDisconnectLogFilter();

    @AfterEach
    void running() {
        BrokerDisconnectLogFilter.running();
    }

    @Test
    void aLostConnectionIsOneWarningLineWithItsCauseWhileRunning() {
        assertOneWarningLine("SRMSG16214: AMQP Connection failure", "Connection disconnected");
        assertOneWarningLine("SRMSG16205: Unable to retrieve messages from AMQP, retrying...",
                "Connection disconnected");
        ExtLogRecord silent = assertOneWarningLine("SRMSG16214: AMQP Connection failure",
                "Connection disconnected - local-idle-timeout expired");

        ExtLogRecord attempt = connector("SRMSG16215: Unable to connect to the broker, retry will be attempted",
                new io.vertx.core.VertxException("Disconnected"));
        assertFalse(filter.isLoggable(attempt), "an attempt closed before the broker opened it: not a line each");

        // With a finite AMQP_RECONNECT_ATTEMPTS the connector reports every attempt the broker's host refuses.
        ExtLogRecord refused = connector("SRMSG16215: Unable to connect to the broker, retry will be attempted",
                new java.net.ConnectException("Connection refused: /127.0.0.1:5679"));
        assertTrue(filter.isLoggable(refused));
        assertEquals(org.jboss.logmanager.Level.WARN, refused.getLevel());
        assertNull(refused.getThrown(), "no stack trace");
        assertEquals("SRMSG16215: Unable to connect to the broker, retry will be attempted: Connection refused:"
                + " /127.0.0.1:5679", ConsoleLogFilter.text(refused));

        assertTrue(filter.isLoggable(silent), "a line already rewritten passes unchanged");
        assertEquals(org.jboss.logmanager.Level.WARN, silent.getLevel());
    }

    @Test
    void aSpentReconnectionBudgetIsOneLinePerStepAndItsEndStaysAnError() {
        String messaging = "io.smallrye.reactive.messaging.provider";
        // The steps: the connection given up, then tried again by the inbound channel's own retry.
        assertSpentAsOneLine(CONNECTOR, "SRMSG16216: Unable to recover from AMQP connection disruption",
                org.jboss.logmanager.Level.WARN);
        assertSpentAsOneLine(CONNECTOR, "SRMSG16205: Unable to retrieve messages from AMQP, retrying...",
                org.jboss.logmanager.Level.WARN);
        // The end: each report stays an error.
        assertSpentAsOneLine(CONNECTOR, "SRMSG16206: Unable to retrieve messages from AMQP, no more retry",
                org.jboss.logmanager.Level.ERROR);
        ExtLogRecord closed = assertSpentAsOneLine(CONNECTOR, "SRMSG16225: Failure reported for channel"
                + " `points-dead-letter`, closing client", org.jboss.logmanager.Level.ERROR);
        assertTrue(filter.isLoggable(closed), "the same record, through another handler");
        assertSpentAsOneLine(messaging, "SRMSG00201: Error caught while processing a message in method"
                + " io.pointsinbox.messaging.PointsGrantedConsumer#onMessage", org.jboss.logmanager.Level.ERROR);

        Exception bug = new IllegalStateException("a bug");
        ExtLogRecord other = connector("SRMSG00201: Error caught while processing a message in method x", bug);
        other.setLoggerName(messaging);
        assertTrue(filter.isLoggable(other));
        assertSame(bug, other.getThrown(), "any other failure of the method keeps its stack trace");
        BrokerDisconnectLogFilter.stopping();
        ExtLogRecord atStop = connector("SRMSG16206: Unable to retrieve messages from AMQP, no more retry",
                spent("Connection refused: /127.0.0.1:5679"));
        assertTrue(filter.isLoggable(atStop));
        assertNotNull(atStop.getThrown(), "during a stop nothing of this is rewritten");
    }

    /** The record of a spent budget is kept at {@code level} as one line, the cause and the budget appended. */
    private ExtLogRecord assertSpentAsOneLine(String logger, String message, java.util.logging.Level level) {
        String where = "Connection refused: /127.0.0.1:5679";
        ExtLogRecord record = connector(message, spent(where));
        record.setLoggerName(logger);
        assertTrue(filter.isLoggable(record), message);
        assertEquals(level, record.getLevel(), message);
        assertNull(record.getThrown(), "no stack trace: " + message);
        assertEquals(message + ": " + where + " (Retries exhausted: 3/3)", ConsoleLogFilter.text(record));
        return record;
    }

    /** Netty's refused connection as the connector reports it once the budget is spent, with Mutiny's note. */
    private static Exception spent(String refused) {
        Exception cause = new java.net.ConnectException(refused);
        IllegalStateException exhausted = new IllegalStateException("Retries exhausted: 3/3", cause);
        cause.addSuppressed(exhausted); // the cycle the connector's records carry
        return cause;
    }

    @Test
    void aRefusedLinkIsTheBrokersErrorAndOnlyThat() {
        assertEquals(java.util.Optional.of("amqp:illegal-state: Address points-granted is not configured for queue"
                + " support"), RefusedReceiverLink.brokerError(new Exception("Error{condition=amqp:illegal-state,"
                        + " description='Address points-granted is not configured for queue support', info=null}")));
        assertEquals(java.util.Optional.of("amqp:unauthorized-access"), RefusedReceiverLink.brokerError(
                new Exception("wrapped", new Exception("Error{condition=amqp:unauthorized-access,"
                        + " description='null', info=null}"))));
        for (String other : new String[] { "Connection disconnected - Error{condition=amqp:connection:forced,"
                + " description='broker stopping', info=null}", "Connection refused: /127.0.0.1:5673", "Disconnected" }) {
            assertEquals(java.util.Optional.empty(), RefusedReceiverLink.brokerError(new Exception(other)), other);
        }

        ExtLogRecord refused = connector("SRMSG16205: Unable to retrieve messages from AMQP, retrying...",
                new Exception("Error{condition=amqp:not-found, description='no such queue', info=null}"));
        assertFalse(filter.isLoggable(refused), "each attempt's connector line: RefusedReceiverLink says it once");

        ExtLogRecord closed = new ExtLogRecord(Level.WARNING, "Consumer for address points-granted unexpectedly closed"
                + " remotely with error: Error{condition=amqp:not-found, description='no such queue', info=null}",
                getClass().getName());
        closed.setLoggerName("io.vertx.amqp.impl.AmqpReceiverImpl");
        assertTrue(filter.isLoggable(closed), "a link closed with an error outside a refusal is kept");
        BrokerDisconnectLogFilter.linkRefused(true);
        try {
            assertFalse(filter.isLoggable(closed), "the AMQP client's half of each refused attempt");
        } finally {
            BrokerDisconnectLogFilter.linkRefused(false);
        }
    }

    @Test
    void aChannelFailureIsReportedOnce() {
        String failed = "SRMSG16225: Failure reported for channel `points-dead-letter`, closing client";
        Exception refused = new Exception("Error{condition=amqp:not-found, description='no such address', info=null}");
        ExtLogRecord first = connector(failed, refused);
        assertTrue(filter.isLoggable(first), "the report with the broker's reason");
        assertEquals(org.jboss.logmanager.Level.ERROR, first.getLevel());
        assertTrue(filter.isLoggable(first), "the same record, through another handler");
        ExtLogRecord again = connector(failed, refused);
        assertFalse(filter.isLoggable(again), "the same report again, at once");
        assertFalse(filter.isLoggable(again), "the same record, through another handler");
        assertTrue(filter.isLoggable(connector(failed, new Exception("Error{condition=amqp:unauthorized-access,"
                + " description='null', info=null}"))), "another failure");
    }

    /** The connector's ERROR with this cause is kept as one WARN line, the cause appended, and no stack trace. */
    private ExtLogRecord assertOneWarningLine(String message, String cause) {
        ExtLogRecord record = connector(message, new Exception(cause));
        assertTrue(filter.isLoggable(record), "kept: " + message);
        assertEquals(org.jboss.logmanager.Level.WARN, record.getLevel(), message);
        assertNull(record.getThrown(), "no stack trace: " + message);
        assertEquals(message + ": " + cause + "; the connector reconnects", ConsoleLogFilter.text(record));
        return record;
    }

    @Test
    void aConnectionResetByItsPeerIsOneWarningLine() {
        for (String reset : new String[] { "Connection reset",
                "recvAddress(..) failed with error(-104): Connection reset by peer" }) {
            ExtLogRecord record = new ExtLogRecord(org.jboss.logmanager.Level.ERROR, reset,
                    ExtLogRecord.FormatStyle.NO_FORMAT, getClass().getName());
            record.setLoggerName("io.vertx.core.net.impl.ConnectionBase");
            record.setThrown(new java.net.SocketException(reset));
            assertTrue(filter.isLoggable(record), reset);
            assertEquals(org.jboss.logmanager.Level.WARN, record.getLevel(), reset);
            assertNull(record.getThrown(), "no stack trace: " + reset);
            assertEquals("A connection was reset by its peer (" + reset + "): the AMQP broker stopped without closing"
                    + " it (killed, or its host lost); the connector reconnects", ConsoleLogFilter.text(record));
        }

        ExtLogRecord other = new ExtLogRecord(org.jboss.logmanager.Level.ERROR, "Broken pipe",
                ExtLogRecord.FormatStyle.NO_FORMAT, getClass().getName());
        other.setLoggerName("io.vertx.core.net.impl.ConnectionBase");
        assertTrue(filter.isLoggable(other));
        assertEquals(org.jboss.logmanager.Level.ERROR, other.getLevel(), "another failure of a connection stays");

        ExtLogRecord elsewhere = new ExtLogRecord(org.jboss.logmanager.Level.ERROR, "Connection reset",
                ExtLogRecord.FormatStyle.NO_FORMAT, getClass().getName());
        elsewhere.setLoggerName("org.postgresql.core.v3.QueryExecutorImpl");
        assertTrue(filter.isLoggable(elsewhere));
        assertEquals(org.jboss.logmanager.Level.ERROR, elsewhere.getLevel(), "another logger's reset stays");
    }

    @Test
    void aHostThatDoesNotResolveAndAFailedHandshakeAreOneLineAMinuteEach() {
        String attempt = "SRMSG16215: Unable to connect to the broker, retry will be attempted";
        ExtLogRecord host = connector(attempt, new java.net.UnknownHostException("broker.example.invalid"));
        assertTrue(filter.isLoggable(host));
        assertEquals(org.jboss.logmanager.Level.WARN, host.getLevel(), "a name that may resolve later: a warning");
        assertNull(host.getThrown(), "no stack trace");
        assertEquals(attempt + ": the broker's host name does not resolve (broker.example.invalid): check AMQP_HOST;"
                + " the connector tries again every AMQP_RECONNECT_INTERVAL, and this line comes again once a minute"
                + " while it fails", ConsoleLogFilter.text(host));
        assertFalse(filter.isLoggable(connector(attempt, new java.net.UnknownHostException("broker.example.invalid"))),
                "the next attempt: left out");

        Exception handshake = new javax.net.ssl.SSLHandshakeException("PKIX path building failed");
        handshake.initCause(new java.security.cert.CertificateException(
                "unable to find valid certification path to requested target"));
        ExtLogRecord tls = connector(attempt, handshake);
        assertTrue(filter.isLoggable(tls), "another kind of failure has a minute of its own");
        assertEquals(org.jboss.logmanager.Level.ERROR, tls.getLevel(), "a failed TLS handshake stays an error");
        assertNull(tls.getThrown(), "no stack trace");
        assertEquals(attempt + ": the TLS handshake with the broker failed (unable to find valid certification path"
                + " to requested target): check AMQP_HOST, the broker's certificate and"
                + " POINTS_BROKER_TRUST_CERTIFICATES; the connector tries again every AMQP_RECONNECT_INTERVAL, and this"
                + " line comes again once a minute while it fails", ConsoleLogFilter.text(tls));
        assertFalse(filter.isLoggable(connector(attempt, new javax.net.ssl.SSLHandshakeException("again"))));
    }

    @Test
    void everyOtherErrorIsLeftAsItIs() {
        ExtLogRecord refused = connector("SRMSG16205: Unable to retrieve messages from AMQP, retrying...",
                new Exception("Address points-granted is not configured for queue support"));
        assertTrue(filter.isLoggable(refused));
        assertEquals(org.jboss.logmanager.Level.ERROR, refused.getLevel(), "a refused link stays an error");
        assertNotNull(refused.getThrown());

        ExtLogRecord ours = new ExtLogRecord(org.jboss.logmanager.Level.ERROR, "SRMSG16214: AMQP Connection failure",
                ExtLogRecord.FormatStyle.NO_FORMAT, getClass().getName());
        ours.setLoggerName("io.pointsinbox.messaging.ConsumptionSwitch");
        ours.setThrown(new Exception("Connection disconnected"));
        assertTrue(filter.isLoggable(ours));
        assertEquals(org.jboss.logmanager.Level.ERROR, ours.getLevel(), "another logger's line is untouched");

        LogRecord plain = new LogRecord(Level.SEVERE, "SRMSG16214: AMQP Connection failure");
        plain.setLoggerName(CONNECTOR);
        assertTrue(filter.isLoggable(plain));
        assertEquals(Level.SEVERE, plain.getLevel(), "no cause, nothing to say instead of it");
    }

    @Test
    void dropsTheServicesOwnDisconnectOnlyDuringShutdown() {
        BrokerDisconnectLogFilter.stopping();
        assertFalse(filter.isLoggable(connector("SRMSG16214: AMQP Connection failure [Error Occurred After Shutdown]",
                new Exception("Connection disconnected"))), "the service's own close, at shutdown");
        ExtLogRecord closedClient = connector("SRMSG16215: Unable to connect to the broker, retry will be attempted"
                + " [Error Occurred After Shutdown]", new IllegalStateException("Client is closed"));
        assertFalse(filter.isLoggable(closedClient), "an attempt due after the client closed, at shutdown");
        ExtLogRecord refused = connector("SRMSG16214: AMQP Connection failure", new Exception("Connection refused"));
        assertTrue(filter.isLoggable(refused), "another cause of the same message is kept");
        assertEquals(org.jboss.logmanager.Level.ERROR, refused.getLevel());
        assertTrue(filter.isLoggable(connector("SRMSG16205: Unable to retrieve messages from AMQP",
                new Exception("Connection disconnected"))), "another message of the connector is kept");
        BrokerDisconnectLogFilter.running();
        ExtLogRecord closedWhileRunning = connector("SRMSG16215: Unable to connect to the broker, retry will be"
                + " attempted", new IllegalStateException("Client is closed"));
        assertTrue(filter.isLoggable(closedWhileRunning), "a closed client while the service runs is a fault: kept");
        assertEquals(org.jboss.logmanager.Level.ERROR, closedWhileRunning.getLevel());
        ExtLogRecord again = connector("SRMSG16214: AMQP Connection failure", new Exception("Connection disconnected"));
        assertTrue(filter.isLoggable(again), "started again: logged again");
        assertEquals(org.jboss.logmanager.Level.WARN, again.getLevel());
    }

    @Test
    void credentialsTheBrokerRefusesAreOneErrorLineAMinute() {
        String attempt = "SRMSG16215: Unable to connect to the broker, retry will be attempted";
        ExtLogRecord first = connector(attempt,
                new javax.security.sasl.AuthenticationException("Failed to authenticate"));
        assertTrue(filter.isLoggable(first));
        assertEquals(org.jboss.logmanager.Level.ERROR, first.getLevel(), "a misconfiguration: it stays an error");
        assertNull(first.getThrown(), "no stack trace");
        assertEquals(attempt + ": the broker refused the service's credentials (Failed to authenticate): check"
                + " AMQP_USERNAME and AMQP_PASSWORD against the broker's users; the connector tries again every"
                + " AMQP_RECONNECT_INTERVAL, and this line comes again once a minute while it fails",
                ConsoleLogFilter.text(first));
        assertTrue(filter.isLoggable(first), "the rewritten line passes the next handler unchanged");

        ExtLogRecord next = connector(attempt, new io.vertx.core.VertxException("connect failed",
                new javax.security.sasl.AuthenticationException("Failed to authenticate")));
        assertFalse(filter.isLoggable(next), "the next attempt, a second later: dropped");
        assertFalse(filter.isLoggable(next), "the same record, asked by a second handler: the same answer");
        ExtLogRecord establishing = new ExtLogRecord(org.jboss.logmanager.Level.INFO,
                "SRMSG16212: Establishing connection with AMQP broker", ExtLogRecord.FormatStyle.MESSAGE_FORMAT,
                BrokerDisconnectLogFilterTest.class.getName());
        establishing.setLoggerName(CONNECTOR);
        assertFalse(filter.isLoggable(establishing), "each attempt's INFO line, while the broker refuses: left out");

        long now = System.nanoTime();
        BrokerDisconnectLogFilter.Persistent credentials = BrokerDisconnectLogFilter.Persistent.CREDENTIALS;
        assertFalse(BrokerDisconnectLogFilter.persistentReport(credentials, Long.MAX_VALUE - 3, now + 30_000_000_000L),
                "half a minute after the first line: still left out");
        assertTrue(BrokerDisconnectLogFilter.persistentReport(credentials, Long.MAX_VALUE - 2,
                now + BrokerDisconnectLogFilter.PERSISTENT_REPEAT_NANOS), "a minute after the first line: again");
        assertFalse(BrokerDisconnectLogFilter.persistentReport(credentials, Long.MAX_VALUE - 1,
                now + BrokerDisconnectLogFilter.PERSISTENT_REPEAT_NANOS + 1_000_000_000L));

        BrokerDisconnectLogFilter.running();
        assertTrue(filter.isLoggable(establishing), "each attempt's INFO line is kept otherwise");
    }

    /** A record as the connector's generated logger publishes it: ERROR, a message-format text, a cause. */
    private static ExtLogRecord connector(String message, Throwable cause) {
        ExtLogRecord record = new ExtLogRecord(org.jboss.logmanager.Level.ERROR, message,
                ExtLogRecord.FormatStyle.MESSAGE_FORMAT, BrokerDisconnectLogFilterTest.class.getName());
        record.setLoggerName(CONNECTOR);
        record.setThrown(cause);
        return record;
    }
}
