package io.pointsinbox.messaging;

import java.time.Duration;
import java.util.Optional;

import jakarta.transaction.RollbackException;

import io.pointsinbox.config.Durations;
import io.pointsinbox.config.TransactionTimeout;
import io.pointsinbox.ops.DatabaseConnectionLoss;

/**
 * A delivery whose processing failed, named: the message id, the consumer and the attempt, so that the connector's
 * error line ({@code SRMSG00200 ... has thrown an exception}) says which message was rolled back and handed back to
 * the broker, and why, with the failure as its cause. Only the text is new: the transaction has already been rolled
 * back for the failure it wraps. A failure that is the loss of the database connection says so in a few words
 * ({@link #connectionLost()}), and {@link DeliveryFailureLogFilter} logs it as one warning line: a failover fails
 * every delivery in flight at once, none of them a bug. So does a transaction that the transaction manager rolled back
 * at its timeout ({@link #timedOut()}): its commit then fails with "the transaction is not active", whose stack trace
 * says nothing, and the statement it was waiting on (a silent database, a lock) is no longer known.
 */
final class DeliveryFailedException extends RuntimeException {

    private final boolean connectionLost;
    private final boolean timedOut;

    DeliveryFailedException(Object messageId, Object consumer, long attempt, Exception failure) {
        this(messageId, consumer, attempt, failure, Duration.ZERO, Duration.ZERO);
    }

    /**
     * @param running how long the delivery had been in its transaction when it failed
     * @param transactionTimeout the transaction manager's timeout: a commit refused after at least that long, before
     *        any resource was asked to commit (no failure of one beside it), is the commit of a transaction the
     *        manager rolled back at its timeout; so is a batch's transaction that ran for that long
     *        ({@link BatchTimedOut})
     */
    DeliveryFailedException(Object messageId, Object consumer, long attempt, Exception failure, Duration running,
            Duration transactionTimeout) {
        this(messageId, consumer, attempt, failure, DatabaseConnectionLoss.in(failure),
                failure instanceof BatchTimedOut
                        || failure instanceof RollbackException && failure.getSuppressed().length == 0
                                && TransactionTimeout.reached(running, transactionTimeout),
                transactionTimeout);
    }

    private DeliveryFailedException(Object messageId, Object consumer, long attempt, Exception failure,
            Optional<Throwable> connectionLoss, boolean timedOut, Duration transactionTimeout) {
        super("Message " + messageId + " for consumer " + consumer + " failed on delivery attempt " + attempt
                + connectionLoss.map(loss -> what(failure, loss))
                        .orElseGet(() -> timedOut ? timedOut(transactionTimeout)
                                : ", rolled back and handed back to the broker: " + why(failure)),
                failure, false, false);
        this.connectionLost = connectionLoss.isPresent();
        this.timedOut = connectionLoss.isEmpty() && timedOut;
    }

    /** Whether the failure was the loss of the database connection, which the message's text then says. */
    boolean connectionLost() {
        return connectionLost;
    }

    /** Whether the transaction manager rolled the transaction back at its timeout, which the message's text says. */
    boolean timedOut() {
        return timedOut;
    }

    private static String timedOut(Duration transactionTimeout) {
        return ", rolled back and handed back to the broker: its transaction outlived the transaction timeout ("
                + Durations.readable(transactionTimeout) + ", " + TransactionTimeout.PROPERTY + ")"
                + " and the transaction manager rolled it back; the database did not answer in time, or a lock held"
                + " the delivery";
    }

    private static String what(Exception failure, Throwable loss) {
        if (failure instanceof RollbackException) {
            // The commit was sent and its answer never came: PostgreSQL may have committed it before the loss.
            return " and was handed back to the broker: the database connection was lost during the commit ("
                    + DatabaseConnectionLoss.describe(loss) + "), which may have taken effect; if it did, the"
                    + " redelivery is a duplicate";
        }
        if (DatabaseConnectionLoss.refusedConnection(loss)) {
            return ", rolled back and handed back to the broker: no new database connection could be opened ("
                    + DatabaseConnectionLoss.describe(loss) + ")";
        }
        return ", rolled back and handed back to the broker: the database connection was lost ("
                + DatabaseConnectionLoss.describe(loss) + ")";
    }

    /** The failure, and its root cause when the failure's own text does not say it (a failed commit's does not). */
    private static String why(Exception failure) {
        Throwable root = root(failure);
        if (root == failure && failure.getSuppressed().length > 0) {
            // A failed commit: Narayana adds the resource's failure as a suppressed exception, not as the cause.
            root = root(failure.getSuppressed()[0]);
        }
        String text = String.valueOf(failure);
        if (root == failure || root.getMessage() != null && text.contains(root.getMessage())) {
            return text;
        }
        return text + " (cause: " + root + ")";
    }

    private static Throwable root(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }
}
