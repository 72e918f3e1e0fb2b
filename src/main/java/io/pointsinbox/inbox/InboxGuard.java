package io.pointsinbox.inbox;

import java.time.Instant;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import org.hibernate.exception.ConstraintViolationException;

import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * Claims a message id for a consumer. The unique index decides, never a prior SELECT: the row is inserted and
 * flushed at once so that a duplicate surfaces here, inside the caller's transaction, and not at commit.
 */
@ApplicationScoped
public class InboxGuard {

    /**
     * Inserts the inbox row; returns it, or empty when the (consumer, message id) pair was already claimed. A
     * concurrent first delivery of the same id makes this call wait on the index until that transaction ends. On a
     * duplicate the transaction is marked rollback-only: nothing of this delivery may commit.
     */
    @Transactional(TxType.MANDATORY)
    public Optional<InboxMessage> claim(String consumer, InboxEntry entry) {
        InboxMessage row = new InboxMessage();
        row.consumer = consumer;
        row.messageId = entry.messageId();
        row.messageType = entry.type();
        row.payloadJson = entry.payloadJson();
        row.payloadHash = entry.payloadHash();
        // Written complete in one insert: the outcome is PROCESSED unless the effect says otherwise (a business
        // rejection), which saves an update per message on the common path.
        row.outcome = InboxOutcome.PROCESSED;
        row.receivedAt = Instant.now();
        row.processedAt = row.receivedAt;
        try {
            row.persistAndFlush();
            return Optional.of(row);
        } catch (RuntimeException e) {
            if (!isInboxKeyViolation(e)) {
                throw e;
            }
            QuarkusTransaction.setRollbackOnly();
            return Optional.empty();
        }
    }

    /**
     * The committed claim that made a delivery a duplicate. Read in a transaction of its own: the caller's has
     * failed on the unique index and can run no further statement.
     */
    @Transactional(TxType.REQUIRES_NEW)
    public Optional<InboxMessage> original(String consumer, java.util.UUID messageId) {
        return InboxMessage.findByKey(consumer, messageId);
    }

    static boolean isInboxKeyViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConstraintViolationException violation) {
                return InboxMessage.UNIQUE_KEY.equals(violation.getConstraintName());
            }
        }
        return false;
    }
}
