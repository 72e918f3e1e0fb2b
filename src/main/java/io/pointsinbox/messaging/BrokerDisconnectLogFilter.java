package io.pointsinbox.messaging;

import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * Keeps the AMQP connector's reports of a lost broker connection to what they say. The connector logs a connection
 * that the broker closed (a broker restart, a rolling update of the broker) or that fell silent past the idle
 * timeout as ERRORs with some thirty lines of the AMQP client's internals each, three of them per outage, although
 * it reconnects on its own. While the service runs, such a line becomes one WARN line naming the cause; how long the
 * connection stays missing is for {@link BrokerConnectionWatch} to say. With a proxy in between that accepts
 * connections while the broker is away, every reconnection attempt is one more ERROR ("Unable to connect to the
 * broker ... Disconnected"): dropped, as the client says nothing of an attempt the broker's host refuses. During a
 * graceful stop the service's own connection closing is reported the same way, an ERROR for nothing that went wrong,
 * and so is a reconnection attempt due after the client closed (a stop while the broker is away): those lines are
 * dropped. A broker killed (or its host lost) resets the connection instead, which Vert.x reports as a
 * bare ERROR "Connection reset", since the AMQP client handles no failure of its socket: that line becomes one WARN
 * saying what it means. A receiver link the broker refuses (or closes with an error) is retried by the connector every
 * reconnect interval, each time an ERROR of the connector and a WARN of the AMQP client: both are dropped, since
 * {@link RefusedReceiverLink} says it once, with the broker's reason and what to do. With a finite reconnection budget
 * the connector also reports each connection attempt the broker's host refuses, and each step of its giving up when
 * the budget is spent: one WARN line each, no stack trace, but for the channel's end ("no more retry", the channel
 * closed, the consumer's stream failed), one ERROR line each. A channel the connector closes for good (a dead-letter
 * link the broker refused) is reported twice, word for word: the second report is dropped. An attempt that fails
 * the same way until someone changes something (credentials the broker refuses, a host name that does not resolve,
 * a TLS handshake that fails) is one line a minute naming the settings to check, with no stack trace, and the
 * connector's INFO line of each attempt is left out meanwhile. Every other line of the connector is left as it is.
 * Part of {@link ConsoleLogFilter}.
 */
final class BrokerDisconnectLogFilter implements Filter {

    private static final String CONNECTOR = "io.smallrye.reactive.messaging.amqp";
    /** "AMQP Connection failure" and "Unable to retrieve messages from AMQP, retrying...". */
    private static final String CONNECTION_FAILURE = "SRMSG16214";
    private static final String RECEIVER_RETRYING = "SRMSG16205";
    /** "Unable to connect to the broker, retry will be attempted". */
    private static final String CONNECT_RETRYING = "SRMSG16215";
    private static final String DISCONNECTED = "Connection disconnected";
    /** Netty's words for a connection attempt the broker's host refused: "Connection refused: /127.0.0.1:5672". */
    private static final String REFUSED = "Connection refused";
    /** The AMQP client's answer to a reconnection attempt due after it was closed. */
    private static final String CLIENT_CLOSED = "Client is closed";
    /** "Failure reported for channel ..., closing client": logged twice, word for word, for one failure. */
    private static final String CHANNEL_FAILED = "SRMSG16225";
    private static final long SAME_FAILURE_NANOS = 1_000_000_000L;
    /** The messaging core's logger: "SRMSG00201: Error caught while processing a message in method ...". */
    private static final String MESSAGING = "io.smallrye.reactive.messaging.provider";
    /** "Unable to retrieve messages from AMQP, no more retry": the inbound channel gives up. */
    private static final String RECEIVER_GAVE_UP = "SRMSG16206";
    /** Mutiny's words, suppressed in the cause, when a finite reconnection budget is spent ("...: 3/3"). */
    private static final String EXHAUSTED = "Retries exhausted";
    /** Vert.x's logger for a connection failure nothing handled: the AMQP client sets no handler on its socket. */
    private static final String VERTX_CONNECTION = "io.vertx.core.net.impl.ConnectionBase";

    /** The AMQP client's logger for a receiver link the broker closed: "Consumer for address ... closed remotely". */
    private static final String VERTX_RECEIVER = "io.vertx.amqp.impl.AmqpReceiverImpl";
    private static final String CLOSED_REMOTELY = "unexpectedly closed remotely";

    /**
     * A connection attempt that fails the same way until someone changes something: said once a minute, one line,
     * while the connector tries again every reconnect interval.
     */
    enum Persistent {
        CREDENTIALS(org.jboss.logmanager.Level.ERROR, "the broker refused the service's credentials (%s): check"
                + " AMQP_USERNAME and AMQP_PASSWORD against the broker's users"),
        HOST(org.jboss.logmanager.Level.WARN, "the broker's host name does not resolve (%s): check AMQP_HOST"),
        TLS(org.jboss.logmanager.Level.ERROR, "the TLS handshake with the broker failed (%s): check AMQP_HOST, the"
                + " broker's certificate and POINTS_BROKER_TRUST_CERTIFICATES");

        private final Level level;
        private final String text;

        Persistent(Level level, String text) {
            this.level = level;
            this.text = text;
        }

        String line(String cause) {
            return String.format(text, cause) + "; the connector tries again every AMQP_RECONNECT_INTERVAL, and this"
                    + " line comes again once a minute while it fails";
        }
    }

    /** How often one kind of persistent failure is reported while the connector retries. */
    static final long PERSISTENT_REPEAT_NANOS = 60_000_000_000L;
    /** "Establishing connection with AMQP broker": the connector's INFO line at each attempt. */
    private static final String ESTABLISHING = "SRMSG16212";
    /** How long after an attempt that failed persistently the next attempts' INFO lines are left out. */
    private static final long FAILING_NANOS = 5_000_000_000L;

    private static volatile boolean stopping;
    /** When an attempt last failed persistently (System.nanoTime), 0 if none has. */
    private static volatile long lastPersistentFailureAt;
    /** When each kind was last reported, and the last record asked about with its answer (see the channel failure). */
    private static final java.util.Map<Persistent, Long> PERSISTENT_KEPT_AT = new java.util.EnumMap<>(Persistent.class);
    private static final RecordAnswer PERSISTENT_ANSWER = new RecordAnswer();
    private static volatile boolean linkRefused;
    /** The last channel failure reported and when: to keep its second report out. */
    private static String lastChannelFailure;
    private static long lastChannelFailureAt;
    private static final RecordAnswer CHANNEL_FAILURE_ANSWER = new RecordAnswer();

    /**
     * The last record asked about and the answer: every handler that applies this filter (the console, a log file)
     * asks about each record, and gets the same answer.
     */
    private static final class RecordAnswer {
        private long record = -1;
        private boolean kept;

        /** {@code decide}'s answer for this record, decided once. The caller holds the filter's class lock. */
        boolean of(long record, java.util.function.BooleanSupplier decide) {
            if (record != this.record) {
                this.record = record;
                this.kept = decide.getAsBoolean();
            }
            return kept;
        }
    }

    /** Called by {@link ConsumptionSwitch} when shutdown begins. */
    static void stopping() {
        stopping = true;
    }

    /** Called by {@link ConsumptionSwitch} at start-up (a JVM may start the application again, as tests do). */
    static void running() {
        stopping = false;
        synchronized (BrokerDisconnectLogFilter.class) {
            PERSISTENT_KEPT_AT.clear();
        }
        lastPersistentFailureAt = 0;
    }

    /** Called by {@link RefusedReceiverLink} when the broker starts refusing the receiver link, and when it stops. */
    static void linkRefused(boolean refused) {
        linkRefused = refused;
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        if (lastPersistentFailureAt != 0 && record.getMessage() != null
                && record.getMessage().startsWith(ESTABLISHING) && record.getLoggerName() != null
                && record.getLoggerName().startsWith(CONNECTOR)
                && System.nanoTime() - lastPersistentFailureAt < FAILING_NANOS) {
            return false; // another attempt while they fail the same way, twice a second: said once a minute
        }
        if (linkRefused && VERTX_RECEIVER.equals(record.getLoggerName()) && record.getMessage() != null
                && record.getMessage().contains(CLOSED_REMOTELY)) {
            return false; // the refusal's other half; RefusedReceiverLink has said it
        }
        if (VERTX_CONNECTION.equals(record.getLoggerName()) && record.getLevel().intValue() >= Level.SEVERE.intValue()
                && isReset(record.getMessage())) {
            // The HTTP server handles its connections' failures itself (a client's reset logs nothing), so here the
            // connection is one of the AMQP client's.
            ConsoleLogFilter.oneWarningLine(record, "A connection was reset by its peer (" + record.getMessage()
                    + "): the AMQP broker stopped without closing it (killed, or its host lost); the connector"
                    + " reconnects");
            return true;
        }
        if (record.getLevel().intValue() < Level.SEVERE.intValue() || record.getLoggerName() == null
                || !(record.getLoggerName().startsWith(CONNECTOR) || record.getLoggerName().equals(MESSAGING))
                || record.getMessage() == null || record.getThrown() == null
                || record.getThrown().getMessage() == null) {
            return true;
        }
        String cause = record.getThrown().getMessage();
        if (record.getLoggerName().equals(MESSAGING)) {
            // The consumer method's stream failed with the connection: one line, the watch says what it means.
            if (!stopping && cause.startsWith(REFUSED)) {
                oneLine(record, cause + exhausted(record.getThrown()));
            }
            return true;
        }
        boolean failure = record.getMessage().contains(CONNECTION_FAILURE);
        if (record.getMessage().contains(CHANNEL_FAILED)) {
            boolean first = firstReport(record.getSequenceNumber(), record.getMessage() + ": " + cause);
            if (first && !stopping && cause.startsWith(REFUSED)) {
                // a reconnection budget spent on a broker's host that refuses: no stack trace
                oneLine(record, cause + exhausted(record.getThrown()));
            }
            return first;
        }
        if (!stopping && record.getMessage().contains(CONNECT_RETRYING)) {
            // A wrong user or password (a secret rotated on one side only), a host name that does not resolve (a
            // broker not deployed yet), a certificate not trusted: every attempt, twice a second with two channels,
            // was an ERROR with thirty lines of the client's internals. One line a minute says it.
            Throwable thrown = record.getThrown();
            Persistent persistent = persistent(thrown);
            if (persistent != null) {
                lastPersistentFailureAt = System.nanoTime();
                if (!persistentReport(persistent, record.getSequenceNumber(), System.nanoTime())) {
                    return false;
                }
                record.setLevel(persistent.level);
                oneLine(record, persistent.line(persistent == Persistent.TLS ? rootMessage(thrown)
                        : causeMessage(thrown, persistent)));
                return true;
            }
        }
        if (record.getMessage().contains(RECEIVER_RETRYING)
                && RefusedReceiverLink.brokerError(record.getThrown()).isPresent()) {
            return false; // a refused link: RefusedReceiverLink says it once, with what to do
        }
        if (stopping) {
            // The service's own connection closing, and an attempt to reach a broker that was away, due after the
            // client closed: nothing went wrong in either.
            return !(failure && DISCONNECTED.equals(cause)
                    || record.getMessage().contains(CONNECT_RETRYING) && CLIENT_CLOSED.equals(cause));
        }
        // The AMQP client's own words for a lost connection, with the broker's or the idle timeout's reason after
        // them ("Connection disconnected - local-idle-timeout expired").
        if ((failure || record.getMessage().contains(RECEIVER_RETRYING)) && cause.startsWith(DISCONNECTED)) {
            ConsoleLogFilter.oneWarningLine(record, ConsoleLogFilter.text(record) + ": " + cause
                    + "; the connector reconnects");
        } else if (record.getMessage().contains(CONNECT_RETRYING) && "Disconnected".equals(cause)) {
            // A connection closed before the broker opened it: something between (a proxy, a sidecar) accepted it
            // while the broker was still away. Without one, the same attempt is refused and the client says nothing;
            // the watch says it once. A failed TLS handshake names its own cause and stays an error.
            return false;
        } else if (cause.startsWith(REFUSED)) {
            // Only with a finite AMQP_RECONNECT_ATTEMPTS does the connector report a refused attempt: each one, then
            // the budget spent (the connection given up, tried again by the inbound channel's own retry), and at last
            // the channel. Each report is one line with no stack trace (the client's internals, every one the same);
            // the steps on the way are warnings, the giving up (no more retry) stays an error.
            if (!record.getMessage().contains(RECEIVER_GAVE_UP)) {
                record.setLevel(org.jboss.logmanager.Level.WARN);
            }
            oneLine(record, cause + exhausted(record.getThrown()));
        }
        return true;
    }

    /** The record at its level, its own words followed by {@code tail} in place of the stack trace. */
    private static void oneLine(LogRecord record, String tail) {
        ConsoleLogFilter.oneLine(record, ConsoleLogFilter.text(record) + ": " + tail);
    }

    /** " (Retries exhausted: 3/3)" when the cause or its own cause carries Mutiny's note of a spent budget. */
    private static String exhausted(Throwable thrown) {
        Throwable t = thrown;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) { // a cause chain can be a cycle
            for (Throwable suppressed : t.getSuppressed()) {
                if (suppressed.getMessage() != null && suppressed.getMessage().startsWith(EXHAUSTED)) {
                    return " (" + suppressed.getMessage() + ")";
                }
            }
        }
        return "";
    }

    /** Whether this channel failure was not reported, word for word, by another record within the last second. */
    private static synchronized boolean firstReport(long record, String failure) {
        return CHANNEL_FAILURE_ANSWER.of(record, () -> {
            long now = System.nanoTime();
            boolean again = failure.equals(lastChannelFailure) && now - lastChannelFailureAt < SAME_FAILURE_NANOS;
            lastChannelFailure = failure;
            lastChannelFailureAt = now;
            return !again;
        });
    }

    /** The kind of persistent failure in the cause chain, or null. */
    static Persistent persistent(Throwable thrown) {
        Throwable t = thrown;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) { // a cause chain can be a cycle
            Persistent kind = kindOf(t);
            if (kind != null) {
                return kind;
            }
        }
        return null;
    }

    /** The kind of persistent failure this throwable itself is, or null. */
    private static Persistent kindOf(Throwable t) {
        if (t instanceof javax.security.sasl.AuthenticationException) {
            return Persistent.CREDENTIALS;
        }
        if (t instanceof java.net.UnknownHostException) {
            return Persistent.HOST;
        }
        return t instanceof javax.net.ssl.SSLException ? Persistent.TLS : null;
    }

    /** The message of the deepest cause of that kind. */
    private static String causeMessage(Throwable thrown, Persistent kind) {
        Throwable found = thrown;
        Throwable t = thrown;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            if (kindOf(t) == kind) {
                found = t;
            }
        }
        return String.valueOf(found.getMessage());
    }

    /** The deepest cause's message: a failed handshake's reason (the certificate path, the host name) is there. */
    private static String rootMessage(Throwable thrown) {
        Throwable t = thrown;
        for (int depth = 0; t.getCause() != null && t.getCause() != t && depth < 8; depth++) {
            t = t.getCause();
        }
        return String.valueOf(t.getMessage());
    }

    /**
     * Whether this record of a persistent failure is kept: the first of its kind, then one a minute. Every handler
     * that applies the filter asks for the same record, and gets the same answer.
     */
    static synchronized boolean persistentReport(Persistent kind, long record, long now) {
        return PERSISTENT_ANSWER.of(record, () -> {
            Long keptAt = PERSISTENT_KEPT_AT.get(kind);
            boolean kept = keptAt == null || now - keptAt >= PERSISTENT_REPEAT_NANOS;
            if (kept) {
                PERSISTENT_KEPT_AT.put(kind, now);
            }
            return kept;
        });
    }

    /**
     * A socket reset by its peer, in Java's words ("Connection reset") or the native transport's ("...: Connection
     * reset by peer"): a broker killed, or its host lost, resets the connection rather than closing it.
     */
    private static boolean isReset(String message) {
        return message != null && (message.equals("Connection reset") || message.endsWith("Connection reset by peer"));
    }
}
