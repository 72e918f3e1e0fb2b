package io.pointsinbox.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import io.pointsinbox.config.BatchConfig;
import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.config.TransactionTimeout;
import io.pointsinbox.contract.MessageType;
import io.pointsinbox.contract.PointsEnvelope;
import io.pointsinbox.ops.InboxMetrics;
import io.pointsinbox.points.BatchMember;
import io.pointsinbox.points.BatchMemberFailed;
import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.points.ProcessingResult;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * Batched mode. A worker hands its delivery over and waits; a batch thread takes everything queued (up to
 * {@code points.batch.max-size}: "smart batching", no timer, so a lone message waits for nothing) and applies the
 * grants in one transaction. The worker returns, and the connector acknowledges, only after that commit.
 * <p>
 * When a batch rolls back, the message whose effect failed fails its delivery, as it would have alone, and every
 * other member is applied in a transaction of its own; redemptions are always applied one by one. A transaction
 * that ran for the whole transaction timeout (a lock, a database that does not answer) is not retried that way: each
 * message would wait out the same timeout in turn, one after the other, while its delivery waits too; every member
 * still waiting is handed back to the broker at once instead, as the deliveries would have been in per-message mode.
 * All database work runs on the batch threads, so the pool needs two connections per thread, not per worker.
 */
@ApplicationScoped
public class GrantBatcher {

    private static final Logger LOG = Logger.getLogger(GrantBatcher.class);

    private record Pending(BatchMember member, CompletableFuture<ProcessingResult> result) {
    }

    private final BatchConfig config;
    private final PointsConfig points;
    private final PointsMessageHandler handler;
    private final InboxMetrics metrics;
    private final Duration transactionTimeout;
    private final TransactionManager transactions;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    GrantBatcher(BatchConfig config, PointsConfig points, PointsMessageHandler handler, InboxMetrics metrics,
            @ConfigProperty(name = TransactionTimeout.PROPERTY, defaultValue = TransactionTimeout.DEFAULT)
            Duration transactionTimeout, TransactionManager transactions) {
        this.config = config;
        this.transactions = transactions;
        this.points = points;
        this.handler = handler;
        this.metrics = metrics;
        this.transactionTimeout = transactionTimeout;
    }

    void start(@Observes StartupEvent event) {
        if (!config.enabled()) {
            return;
        }
        metrics.batchQueue(points.consumer(), queue);
        for (int i = 0; i < config.threads(); i++) {
            Thread thread = new Thread(this::run, "points-batch-" + i);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        LOG.infof("Batched mode: up to %d messages per transaction on %d threads (bounded by %d workers)",
                config.maxSize(), config.threads(), points.concurrency());
    }

    /** After {@link ConsumptionSwitch} has let the deliveries in flight finish: nothing is queued any more. */
    void stop(@Observes @Priority(Interceptor.Priority.PLATFORM_AFTER) ShutdownEvent event) {
        stopped = true;
        threads.forEach(Thread::interrupt);
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(GrantBatcher::handBack);
    }

    /** Applies a delivery in the next batch and waits for its commit; throws if the delivery failed. */
    public ProcessingResult apply(PointsEnvelope envelope) {
        Pending pending = new Pending(new BatchMember(envelope, System.nanoTime()), new CompletableFuture<>());
        queue.add(pending);
        // A delivery queued after stop() drained the queue would wait for a batch thread that is gone: either the
        // drain took it, or this sees the flag it set first.
        if (stopped && queue.remove(pending)) {
            handBack(pending);
        }
        // The delivery's own transaction holds nothing in this mode: its thread leaves it while it waits. One that the
        // transaction timeout rolls back meanwhile still fails the delivery (its commit is refused once resumed), but
        // the transaction manager no longer reports this thread as active in it, with sixty lines of a parked stack
        // per delivery; the batch thread's report shows the statement that held the batch.
        Transaction own = suspend();
        try {
            return pending.result().get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while its batch was running", e);
        } finally {
            resume(own);
        }
    }

    /** Leaves the calling thread's transaction, if any; {@code null} when there is none. */
    private Transaction suspend() {
        try {
            return transactions.suspend();
        } catch (SystemException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Returns to the transaction {@link #suspend()} left, whatever happened to it meanwhile. */
    private void resume(Transaction own) {
        if (own == null) {
            return;
        }
        try {
            transactions.resume(own);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void handBack(Pending pending) {
        pending.result().completeExceptionally(
                new IllegalStateException("shutting down: this delivery goes back to the broker"));
    }

    private void run() {
        List<Pending> batch = new ArrayList<>();
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Pending first = queue.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, config.maxSize() - 1);
                process(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable e) {
                // Never leave a worker waiting, and keep the thread: whatever was not completed fails, and goes back
                // to the broker.
                batch.forEach(pending -> pending.result().completeExceptionally(e));
                LOG.errorf(e, "Batch thread failed; %d deliveries handed back", batch.size());
            } finally {
                batch.clear();
            }
        }
    }

    private void process(List<Pending> batch) {
        List<Pending> grants = new ArrayList<>(batch.size());
        List<Pending> alone = new ArrayList<>();
        for (Pending pending : batch) {
            (pending.member().envelope().type() == MessageType.POINTS_GRANTED ? grants : alone).add(pending);
        }
        if (!grants.isEmpty()) {
            alone.addAll(applyTogether(grants));
        }
        for (int i = 0; i < alone.size(); i++) {
            RuntimeException timedOut = applyAlone(alone.get(i));
            if (timedOut != null) {
                failAll(alone.subList(i + 1, alone.size()), timedOut);
                return;
            }
        }
    }

    /** @return the members to apply one by one, because their batch was rolled back */
    private List<Pending> applyTogether(List<Pending> grants) {
        String consumer = points.consumer();
        MDC.put(DeliveryLogContext.CONSUMER, consumer);
        long start = System.nanoTime();
        try {
            List<ProcessingResult> results = QuarkusTransaction.requiringNew()
                    .call(() -> handler.handleGrants(consumer, grants.stream().map(Pending::member).toList()));
            metrics.batchCommitted(consumer, grants.size());
            for (int i = 0; i < grants.size(); i++) {
                grants.get(i).result().complete(results.get(i));
            }
            return List.of();
        } catch (RuntimeException e) {
            metrics.batchRolledBack(consumer);
            RuntimeException timedOut = timedOut(e, start);
            if (timedOut != null) {
                failAll(grants, timedOut);
                LOG.debugf(e, "Batch of %d rolled back at the transaction timeout; handed back", grants.size());
                return List.of();
            }
            BatchMemberFailed culprit = culprit(e);
            List<Pending> retry = new ArrayList<>(grants.size());
            boolean culpritFailed = culprit == null;
            for (Pending pending : grants) {
                // The first occurrence of the id carried the effect; a repeat of it in the batch is retried, as a
                // concurrent copy of a failing delivery would be in per-message mode.
                if (!culpritFailed && pending.member().envelope().messageId().equals(culprit.messageId())) {
                    culpritFailed = true;
                    metrics.failed(consumer, pending.member().queuedNanos());
                    pending.result().completeExceptionally(culprit);
                } else {
                    retry.add(pending);
                }
            }
            LOG.debugf(e, "Batch of %d rolled back; applying %d of its messages one by one", grants.size(),
                    retry.size());
            return retry;
        } finally {
            MDC.remove(DeliveryLogContext.CONSUMER);
        }
    }

    /** @return the failure, when this member's transaction ran for the whole transaction timeout; otherwise null */
    private RuntimeException applyAlone(Pending pending) {
        PointsEnvelope envelope = pending.member().envelope();
        MDC.put(DeliveryLogContext.CONSUMER, points.consumer());
        MDC.put(DeliveryLogContext.MESSAGE_ID, envelope.messageId().toString());
        long start = System.nanoTime();
        try {
            pending.result().complete(handler.handleAlone(points.consumer(), envelope));
            return null;
        } catch (RuntimeException e) { // a refused commit arrives wrapped by the bean's proxy
            RuntimeException timedOut = timedOut(e, start);
            pending.result().completeExceptionally(timedOut != null ? timedOut : e);
            return timedOut;
        } finally {
            MDC.remove(DeliveryLogContext.CONSUMER);
            MDC.remove(DeliveryLogContext.MESSAGE_ID);
        }
    }

    /**
     * The failure of a transaction that ran for at least the transaction timeout: the transaction manager rolled it
     * back there, whatever the exception the statement or the commit then met (a cancelled statement, a refused
     * commit). Null for any other failure.
     */
    private RuntimeException timedOut(RuntimeException failure, long startNanos) {
        return TransactionTimeout.reached(Duration.ofNanos(System.nanoTime() - startNanos), transactionTimeout)
                ? new BatchTimedOut(transactionTimeout, failure) : null;
    }

    /** Fails each delivery, counted as a failed attempt; the connector hands it back to the broker. */
    private void failAll(List<Pending> members, RuntimeException failure) {
        for (Pending pending : members) {
            if (pending.result().completeExceptionally(failure)) {
                metrics.failed(points.consumer(), pending.member().queuedNanos());
            }
        }
    }

    private static BatchMemberFailed culprit(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BatchMemberFailed failed) {
                return failed;
            }
        }
        return null;
    }
}
