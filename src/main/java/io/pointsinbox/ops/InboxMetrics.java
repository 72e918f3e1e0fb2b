package io.pointsinbox.ops;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pointsinbox.config.PointsConfig;
import io.quarkus.runtime.StartupEvent;

/**
 * Counts messages by outcome and consumer. Outcomes are recorded when the transaction completes, so a message is
 * counted as processed only once its effect is committed, and a rolled-back attempt counts as failed (and is
 * announced as {@link DeliveryFailed}).
 */
@ApplicationScoped
public class InboxMetrics {

    public static final String MESSAGES = "points.inbox.messages";
    public static final String PROCESSING = "points.inbox.processing";
    public static final String REDELIVERED = "points.inbox.redelivered";
    public static final String DUPLICATE_AGE = "points.inbox.duplicate.age";
    public static final String DUPLICATES = "points.inbox.duplicates";
    public static final String BATCH_SIZE = "points.inbox.batch.size";
    public static final String BATCH_QUEUED = "points.inbox.batch.queued";
    public static final String BATCH_ROLLBACKS = "points.inbox.batch.rollbacks";
    public static final String DEAD_LETTER_UNCONFIRMED = "points.inbox.dead.letter.unconfirmed";
    /** Duplicate classes: see {@link Recording#duplicate}. */
    public static final List<String> DUPLICATE_CLASSES = List.of("in_flight", "redelivery",
            "id_conflict");
    static final List<String> OUTCOMES = List.of("processed", "insufficient_balance", "duplicate",
            "id_conflict", "rejected", "too_old", "failed");

    private final MeterRegistry registry;
    private final TransactionSynchronizationRegistry transactions;
    private final Event<DeliveryFailed> failures;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Counter> duplicateClasses = new ConcurrentHashMap<>();
    private final Map<String, Timer> duplicateAges = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> batchSizes = new ConcurrentHashMap<>();

    InboxMetrics(MeterRegistry registry, TransactionSynchronizationRegistry transactions,
            Event<DeliveryFailed> failures) {
        this.registry = registry;
        this.transactions = transactions;
        this.failures = failures;
    }

    /** Registers every series at start-up, so dashboards and alerts see zeros rather than missing data. */
    void registerAtStartup(@Observes StartupEvent event, PointsConfig config) {
        for (String outcome : OUTCOMES) {
            counter(config.consumer(), outcome);
            timer(config.consumer(), outcome);
        }
        registry.counter(REDELIVERED, "consumer", config.consumer());
        deadLetterUnconfirmedCounter(config.consumer());
        for (String duplicateClass : DUPLICATE_CLASSES) {
            duplicateCounter(config.consumer(), duplicateClass);
        }
        duplicateAgeTimer(config.consumer());
        registry.counter(InboxRetention.DELETED);
        registry.counter(InboxRetention.RUNS, "result", "ran");
        registry.counter(InboxRetention.RUNS, "result", "skipped");
        registry.timer(InboxRetention.DURATION);
    }

    /** Starts timing a delivery in the current transaction; its outcome is counted when that transaction ends. */
    public Recording recordOnCompletion(String consumer) {
        return register(new Recording(consumer, System.nanoTime(), true));
    }

    /**
     * Times a message of a batch from the moment it was queued; its outcome is counted if the batch commits. A
     * rolled-back batch counts nothing: each of its messages is then tried alone, and that attempt is counted.
     */
    public Recording recordBatchMember(String consumer, long queuedNanos) {
        return register(new Recording(consumer, queuedNanos, false));
    }

    private Recording register(Recording recording) {
        transactions.registerInterposedSynchronization(recording);
        return recording;
    }

    /** A delivery attempt that failed outside any recorded transaction (its batch was rolled back because of it). */
    public void failed(String consumer, long startNanos) {
        count(consumer, "failed", startNanos);
    }

    private void count(String consumer, String outcome, long startNanos) {
        counter(consumer, outcome).increment();
        timer(consumer, outcome).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        if ("failed".equals(outcome)) {
            failures.fire(new DeliveryFailed(consumer));
        }
    }

    /**
     * A poison message whose dead-letter copy the broker did not confirm in time: the attempt counts as failed and
     * the message is redelivered.
     */
    public void deadLetterUnconfirmed(String consumer, long startNanos) {
        deadLetterUnconfirmedCounter(consumer).increment();
        count(consumer, "failed", startNanos);
    }

    private Counter deadLetterUnconfirmedCounter(String consumer) {
        return Counter.builder(DEAD_LETTER_UNCONFIRMED)
                .description("Dead-letter copies the broker did not confirm within POINTS_DEAD_LETTER_TIMEOUT")
                .tag("consumer", consumer)
                .register(registry);
    }

    /** A message rejected before it reached the inbox (poison, bad HTTP input, or too old). */
    public void rejected(String consumer) {
        rejected(consumer, "rejected");
    }

    public void rejected(String consumer, String outcome) {
        counter(consumer, outcome).increment();
    }

    private Counter duplicateCounter(String consumer, String duplicateClass) {
        return duplicateClasses.computeIfAbsent(consumer + '\n' + duplicateClass, key -> Counter.builder(DUPLICATES)
                .description("Duplicate deliveries by class: in_flight, redelivery, id_conflict")
                .tag("consumer", consumer)
                .tag("class", duplicateClass)
                .register(registry));
    }

    private Timer duplicateAgeTimer(String consumer) {
        return duplicateAges.computeIfAbsent(consumer, key -> Timer.builder(DUPLICATE_AGE)
                .description("Time between the first delivery of an id and a duplicate of it")
                .tag("consumer", consumer)
                .publishPercentileHistogram()
                .maximumExpectedValue(Duration.ofDays(30))
                .register(registry));
    }

    /** Batched mode: deliveries waiting for a batch thread (a queue that keeps growing means too few threads). */
    public void batchQueue(String consumer, Collection<?> queue) {
        Gauge.builder(BATCH_QUEUED, queue, Collection::size)
                .description("Deliveries waiting for a batch transaction (batched mode)")
                .tag("consumer", consumer)
                .register(registry);
        batchSize(consumer);
        registry.counter(BATCH_ROLLBACKS, "consumer", consumer);
    }

    /**
     * Batched mode: a batch transaction rolled back and its messages went one by one. Only a failing effect or a
     * database failure should cause one; two batches racing for one id never do (the unique index makes the second
     * wait, then skip it).
     */
    public void batchRolledBack(String consumer) {
        registry.counter(BATCH_ROLLBACKS, "consumer", consumer).increment();
    }

    /** Batched mode: the number of messages a committed batch transaction applied or acknowledged. */
    public void batchCommitted(String consumer, int size) {
        batchSize(consumer).record(size);
    }

    private DistributionSummary batchSize(String consumer) {
        return batchSizes.computeIfAbsent(consumer, key -> DistributionSummary.builder(BATCH_SIZE)
                .description("Messages per committed batch transaction (batched mode)")
                .tag("consumer", consumer)
                .register(registry));
    }

    /** A delivery the broker had already attempted (AMQP delivery-count above zero). */
    public void redelivered(String consumer) {
        registry.counter(REDELIVERED, "consumer", consumer).increment();
    }

    // Looked up on every delivery: cached so the hot path builds no meter ids.
    private Timer timer(String consumer, String outcome) {
        return timers.computeIfAbsent(consumer + '\n' + outcome, key -> Timer.builder(PROCESSING)
                .description("Time to claim, apply and commit one delivery")
                .tag("consumer", consumer)
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .register(registry));
    }

    private Counter counter(String consumer, String outcome) {
        return counters.computeIfAbsent(consumer + '\n' + outcome, key -> Counter.builder(MESSAGES)
                .description("Messages by final outcome of a delivery attempt")
                .tag("consumer", consumer)
                .tag("outcome", outcome)
                .register(registry));
    }

    /** The outcome of one delivery attempt, settled at transaction completion. */
    public final class Recording implements Synchronization {
        private final String consumer;
        private final long startNanos;
        private final boolean countRollback;
        private String withoutEffect;
        private String duplicateClass;
        private Duration sinceFirst;
        private String committed = "processed";

        private Recording(String consumer, long startNanos, boolean countRollback) {
            this.consumer = consumer;
            this.startNanos = startNanos;
            this.countRollback = countRollback;
        }

        /**
         * The delivery ends without effect: {@code outcome} {@code duplicate} or {@code id_conflict}, and its class,
         * {@code in_flight} (its first delivery was still running when this one reached the unique index, so it
         * waited for that transaction), {@code redelivery} (the first delivery had committed before) or
         * {@code id_conflict} (same id, different payload). {@code sinceFirst}, how long after its id was first
         * claimed it arrived (null if unknown), is the data to size the retention window from. Counted when the
         * transaction completes, like every outcome.
         */
        public void duplicate(String outcome, String duplicateClass, Duration sinceFirst) {
            withoutEffect = outcome;
            this.duplicateClass = duplicateClass;
            this.sinceFirst = sinceFirst;
        }

        /** The outcome to count if the transaction commits. */
        public void committed(String outcome) {
            committed = outcome;
        }

        @Override
        public void beforeCompletion() {
        }

        @Override
        public void afterCompletion(int status) {
            boolean committedTransaction = status == Status.STATUS_COMMITTED;
            if (!committedTransaction && !countRollback) {
                return;
            }
            String outcome = withoutEffect != null ? withoutEffect : committedTransaction ? committed : "failed";
            count(consumer, outcome, startNanos);
            if (duplicateClass != null) {
                duplicateCounter(consumer, duplicateClass).increment();
            }
            if (sinceFirst != null) {
                duplicateAgeTimer(consumer).record(sinceFirst.isNegative() ? Duration.ZERO : sinceFirst);
            }
        }
    }
}
