package io.pointsinbox.inbox;

import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Which claims are running in this process right now, so that a duplicate can be labelled {@code in_flight} (its
 * first delivery was still running here when it reached the unique index) rather than {@code redelivery}. Telemetry
 * only: whether a message is new is always the unique index's decision, never this registry's.
 */
@ApplicationScoped
public class ClaimsInFlight {

    private record Key(String consumer, UUID messageId) {
    }

    /** The claims of one key running in this process, and whether one of them has inserted its row. */
    static final class Running {
        private final AtomicInteger claims = new AtomicInteger();
        private volatile boolean inserted;

        /** This claim inserted the row: a later claim of the key that waited on the index is in flight. */
        void inserted() {
            inserted = true;
        }

        /** Whether a claim of the key running here inserted its row (so a duplicate of it waited for that one). */
        boolean rowInsertedHere() {
            return inserted;
        }
    }

    private final ConcurrentHashMap<Key, Running> running = new ConcurrentHashMap<>();
    private final TransactionSynchronizationRegistry transactions;

    ClaimsInFlight(TransactionSynchronizationRegistry transactions) {
        this.transactions = transactions;
    }

    /** Registers a claim of the key in the current transaction, until that transaction ends. */
    Running enter(String consumer, UUID messageId) {
        Key key = new Key(consumer, messageId);
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
}
