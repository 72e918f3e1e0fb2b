package io.pointsinbox.inbox;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
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

    private record Key(String consumer, UUID messageId) {
    }

    /** Claims of one key running in this process, and whether one of them has inserted its row. */
    private static final class Running {
        final AtomicInteger claims = new AtomicInteger();
        volatile boolean inserted;
    }

    /**
     * Claims running in this process, by key. Only telemetry reads it (to tell an in-flight duplicate from a
     * redelivery); the decision is always the unique index's.
     */
    private final ConcurrentHashMap<Key, Running> running = new ConcurrentHashMap<>();
    private final TransactionSynchronizationRegistry transactions;

    InboxGuard(TransactionSynchronizationRegistry transactions) {
        this.transactions = transactions;
    }

    /**
     * Inserts the inbox row and returns the claim, or says that the (consumer, message id) pair was already claimed.
     * A concurrent first delivery of the same id makes this call wait on the index until that transaction ends. On a
     * duplicate the transaction is marked rollback-only: nothing of this delivery may commit.
     */
    @Transactional(TxType.MANDATORY)
    public Claim claim(String consumer, InboxEntry entry) {
        Running claims = enter(new Key(consumer, entry.messageId()));
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
            claims.inserted = true;
            return Claim.claimed(row);
        } catch (RuntimeException e) {
            if (!isInboxKeyViolation(e)) {
                throw e;
            }
            QuarkusTransaction.setRollbackOnly();
            // The index made this insert wait for a first delivery running here, which then committed: in flight.
            return Claim.alreadyClaimed(claims.inserted);
        }
    }

    /** Registers a running claim of a key until its transaction ends. */
    private Running enter(Key key) {
        Running claims = running.compute(key, (k, current) -> {
            Running value = current == null ? new Running() : current;
            value.claims.incrementAndGet();
            return value;
        });
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                running.computeIfPresent(key, (k, current) -> current.claims.decrementAndGet() == 0 ? null : current);
            }
        });
        return claims;
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
