package io.pointsinbox.support;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import io.pointsinbox.points.PointsApplied;

/**
 * Test-only hook inside the ledger transaction, after the grant is written: fails a chosen delivery, or holds it
 * open so that a concurrent duplicate has to wait on the inbox's unique index.
 */
@ApplicationScoped
public class FailureInjector {

    private final Map<UUID, AtomicInteger> failures = new ConcurrentHashMap<>();
    private final Map<UUID, Hold> holds = new ConcurrentHashMap<>();
    private final Map<UUID, AtomicInteger> commitFailures = new ConcurrentHashMap<>();

    @Inject
    TransactionSynchronizationRegistry transactions;

    public void failTimes(UUID messageId, int times) {
        failures.put(messageId, new AtomicInteger(times));
    }

    public void failAlways(UUID messageId) {
        failTimes(messageId, Integer.MAX_VALUE);
    }

    /**
     * The next {@code times} deliveries of this id fail at their commit, after every statement has run: the
     * transaction's synchronization throws before completion, so the commit rolls back instead.
     */
    public void failAtCommitTimes(UUID messageId, int times) {
        commitFailures.put(messageId, new AtomicInteger(times));
    }

    /** The next delivery of this id pauses inside its transaction until {@link Hold#release()}. */
    public Hold hold(UUID messageId) {
        Hold hold = new Hold();
        holds.put(messageId, hold);
        return hold;
    }

    public void reset() {
        failures.clear();
        commitFailures.clear();
        holds.values().forEach(Hold::release);
        holds.clear();
    }

    void onApplied(@Observes PointsApplied applied) throws InterruptedException {
        Hold hold = holds.remove(applied.messageId());
        if (hold != null) {
            hold.entered.countDown();
            if (!hold.released.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("hold on " + applied.messageId() + " never released");
            }
        }
        AtomicInteger commitsLeft = commitFailures.get(applied.messageId());
        if (commitsLeft != null && commitsLeft.getAndDecrement() > 0) {
            transactions.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                    throw new InjectedFailure("injected commit failure for " + applied.messageId());
                }

                @Override
                public void afterCompletion(int status) {
                }
            });
        }
        AtomicInteger left = failures.get(applied.messageId());
        if (left != null && left.getAndDecrement() > 0) {
            throw new InjectedFailure("injected failure for " + applied.messageId());
        }
    }

    /** A delivery paused inside its transaction. */
    public static final class Hold {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        public boolean awaitEntered(long seconds) throws InterruptedException {
            return entered.await(seconds, TimeUnit.SECONDS);
        }

        public void release() {
            released.countDown();
        }
    }

    /** The failure a test asked for. */
    public static final class InjectedFailure extends RuntimeException {
        InjectedFailure(String message) {
            super(message);
        }
    }
}
