package io.pointsinbox.messaging;

import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import io.pointsinbox.ops.DatabaseConnectionLoss;

/**
 * Keeps a delivery that failed because the database connection was lost to one warning line. A failover, a restarted
 * PostgreSQL or a killed backend fails every delivery in flight at once (up to {@code POINTS_CONCURRENCY}), and each
 * would log the connector's {@code SRMSG00200} ERROR with some 120 lines of stack trace, beside Narayana's warning,
 * with its own stack trace, that the rollback (or the commit) could not reach the closed connection: some 170 lines
 * per message for an event the service recovers from by itself (the message goes back to the broker, the database is
 * probed, consumption waits for it). So:
 * <ul>
 * <li>{@code SRMSG00200} whose failure is a {@link DeliveryFailedException} that {@linkplain
 * DeliveryFailedException#connectionLost() lost its connection} becomes one WARN line, that exception's text (the
 * message, the consumer, the attempt and the driver's words with their SQL state), with no stack trace; so does one
 * whose transaction the transaction manager {@linkplain DeliveryFailedException#timedOut() rolled back at its
 * timeout}, the fate of a delivery held by a silent database that the transaction manager reaches first;</li>
 * <li>{@code SRMSG00200} whose failure is a {@link DeadLetters.DeadLetterImpossibleException} (poison whose
 * dead-letter copy the AMQP library cannot encode) becomes one WARN line, that exception's text: the message is bad
 * input, not a failure of the service, and every attempt of it fails the same way until the broker moves it (ten
 * attempts with Artemis's defaults, each some 60 lines of stack trace); so does one whose failure is a
 * {@link DeadLetters.DeadLetterLinkLostException} (poison while the dead-letter channel is closed for good, which
 * the watch has said once as an error);</li>
 * <li>Narayana's {@code ARJUNA016045} (a rollback failed) and {@code ARJUNA016039} (a one-phase commit failed) are
 * dropped when their failure is the lost connection: the delivery's line says it;</li>
 * <li>the AMQP connector's {@code SRMSG16226} ("A message sent to channel ... has been nacked, ... marking the AMQP
 * message as modified with delivery-failed") is dropped: the service nacks only by throwing from its
 * {@code @Incoming} method, so every nack of the inbound channel follows that failure's {@code SRMSG00200} line (one
 * of the warnings above, naming the message, its cause and that it was handed back, or an error with its stack
 * trace), and this line, which names neither the message nor the cause, doubled the log of every outage.</li>
 * </ul>
 * Every other failure keeps its ERROR and its stack trace: that is what one needs for a failure that is a bug.
 */
final class DeliveryFailureLogFilter implements Filter {

    /** The logger of SmallRye Reactive Messaging's "The method ... has thrown an exception". */
    private static final String MESSAGING = "io.smallrye.reactive.messaging";
    private static final String METHOD_FAILED = "SRMSG00200";
    /** The AMQP connector's logger and its "has been nacked ... modified with delivery-failed". */
    private static final String AMQP_CONNECTOR = "io.smallrye.reactive.messaging.amqp";
    private static final String NACKED_MODIFIED_FAILED = "SRMSG16226";
    private static final String NARAYANA = "com.arjuna.ats";
    private static final String ROLLBACK_FAILED = "ARJUNA016045";
    private static final String ONE_PHASE_COMMIT_FAILED = "ARJUNA016039";

    @Override
    public boolean isLoggable(LogRecord record) {
        String logger = record.getLoggerName();
        if (logger != null && logger.startsWith(AMQP_CONNECTOR) && record.getMessage() != null
                && record.getMessage().contains(NACKED_MODIFIED_FAILED)) {
            return false;
        }
        if (logger == null || record.getMessage() == null || record.getThrown() == null
                || record.getLevel().intValue() < Level.WARNING.intValue()) {
            return true;
        }
        if (logger.startsWith(MESSAGING) && record.getMessage().contains(METHOD_FAILED)) {
            DeadLetters.DeadLetterImpossibleException impossible = find(record.getThrown(),
                    DeadLetters.DeadLetterImpossibleException.class);
            if (impossible != null) {
                ConsoleLogFilter.oneWarningLine(record, impossible.getMessage());
                return true;
            }
            DeadLetters.DeadLetterLinkLostException linkLost = find(record.getThrown(),
                    DeadLetters.DeadLetterLinkLostException.class);
            if (linkLost != null) {
                ConsoleLogFilter.oneWarningLine(record, linkLost.getMessage());
                return true;
            }
            DeliveryFailedException failure = find(record.getThrown(), DeliveryFailedException.class);
            if (failure != null && (failure.connectionLost() || failure.timedOut())) {
                ConsoleLogFilter.oneWarningLine(record, failure.getMessage());
            }
            return true;
        }
        if (logger.startsWith(NARAYANA) && (record.getMessage().contains(ROLLBACK_FAILED)
                || record.getMessage().contains(ONE_PHASE_COMMIT_FAILED))) {
            return DatabaseConnectionLoss.in(record.getThrown()).isEmpty();
        }
        return true;
    }

    private static <T extends Throwable> T find(Throwable thrown, Class<T> type) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
