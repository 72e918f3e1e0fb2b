package io.pointsinbox.ops;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pointsinbox.config.PointsConfig;
import io.quarkus.runtime.StartupEvent;

/**
 * Counts messages by outcome and consumer. Outcomes are recorded when the transaction completes, so a message is
 * counted as processed only once its effect is committed, and a rolled-back attempt counts as failed. Metrics only
 * record: what a failure means for consumption is decided by the messaging adapter's ConsumptionSwitch.
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
            "id_conflict", "rejected", "too_old", "undecodable", "oversized", "failed");

    private final MeterRegistry registry;
    private final TransactionSynchronizationRegistry transactions;
    private final MeterProvider<Counter> messages;
    private final MeterProvider<Timer> processing;
    private final MeterProvider<Counter> duplicates;
    private final MeterProvider<Timer> duplicateAge;
    private final MeterProvider<Counter> redeliveries;
    private final MeterProvider<Counter> deadLettersUnconfirmed;
    private final MeterProvider<DistributionSummary> batchSizes;
    private final MeterProvider<Counter> batchRollbacks;

    InboxMetrics(MeterRegistry registry, TransactionSynchronizationRegistry transactions) {
        this.registry = registry;
        this.transactions = transactions;
        messages = Counter.builder(MESSAGES).description("Messages by final outcome of a delivery attempt")
                .withRegistry(registry);
        processing = Timer.builder(PROCESSING).description("Time to claim, apply and commit one delivery")
                .publishPercentileHistogram().withRegistry(registry);
        duplicates = Counter.builder(DUPLICATES)
                .description("Duplicate deliveries by class: in_flight, redelivery, id_conflict")
                .withRegistry(registry);
        duplicateAge = Timer.builder(DUPLICATE_AGE)
                .description("Time between the first delivery of an id and a duplicate of it")
                .publishPercentileHistogram().maximumExpectedValue(Duration.ofDays(30)).withRegistry(registry);
        redeliveries = Counter.builder(REDELIVERED)
                .description("Deliveries the broker had attempted before (AMQP delivery-count above zero)")
                .withRegistry(registry);
        deadLettersUnconfirmed = Counter.builder(DEAD_LETTER_UNCONFIRMED)
                .description("Dead-letter copies the broker did not confirm within POINTS_DEAD_LETTER_TIMEOUT")
                .withRegistry(registry);
        batchSizes = DistributionSummary.builder(BATCH_SIZE)
                .description("Messages per committed batch transaction (batched mode)").withRegistry(registry);
        batchRollbacks = Counter.builder(BATCH_ROLLBACKS)
                .description("Batch transactions rolled back and applied message by message (batched mode)")
                .withRegistry(registry);
    }

    /** Registers every series at start-up, so dashboards and alerts see zeros rather than missing data. */
    void registerAtStartup(@Observes StartupEvent event, PointsConfig config) {
        String consumer = config.consumer();
        for (String outcome : OUTCOMES) {
            messages.withTags("consumer", consumer, "outcome", outcome);
            processing.withTags("consumer", consumer, "outcome", outcome);
        }
        for (String duplicateClass : DUPLICATE_CLASSES) {
            duplicates.withTags("consumer", consumer, "class", duplicateClass);
        }
        duplicateAge.withTags("consumer", consumer);
        redeliveries.withTags("consumer", consumer);
        deadLettersUnconfirmed.withTags("consumer", consumer);
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
        messages.withTags("consumer", consumer, "outcome", outcome).increment();
        processing.withTags("consumer", consumer, "outcome", outcome)
                .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * A poison message whose dead-letter copy the broker did not confirm in time: the attempt counts as failed and
     * the message is redelivered.
     */
    public void deadLetterUnconfirmed(String consumer, long startNanos) {
        deadLettersUnconfirmed.withTags("consumer", consumer).increment();
        count(consumer, "failed", startNanos);
    }

    /** A message rejected before it reached the inbox (poison, bad HTTP input, too old, or not valid AMQP). */
    public void rejected(String consumer) {
        rejected(consumer, "rejected");
    }

    public void rejected(String consumer, String outcome) {
        messages.withTags("consumer", consumer, "outcome", outcome).increment();
    }

    /**
     * A delivery refused from its start at {@code startNanos}: counted, and its time (reading it, and the broker's
     * confirmation of its dead-letter copy) recorded with the others.
     */
    public void rejected(String consumer, String outcome, long startNanos) {
        count(consumer, outcome, startNanos);
    }

    /** Batched mode: deliveries waiting for a batch thread (a queue that keeps growing means too few threads). */
    public void batchQueue(String consumer, Collection<?> queue) {
        Gauge.builder(BATCH_QUEUED, queue, Collection::size)
                .description("Deliveries waiting for a batch transaction (batched mode)")
                .tag("consumer", consumer)
                .register(registry);
        batchSizes.withTags("consumer", consumer);
        batchRollbacks.withTags("consumer", consumer);
    }

    /**
     * Batched mode: a batch transaction rolled back and its messages went one by one. Only a failing effect or a
     * database failure should cause one; two batches racing for one id never do (the unique index makes the second
     * wait, then skip it).
     */
    public void batchRolledBack(String consumer) {
        batchRollbacks.withTags("consumer", consumer).increment();
    }

    /** Batched mode: the number of messages a committed batch transaction applied or acknowledged. */
    public void batchCommitted(String consumer, int size) {
        batchSizes.withTags("consumer", consumer).record(size);
    }

    /** A delivery the broker had already attempted (AMQP delivery-count above zero). */
    public void redelivered(String consumer) {
        redeliveries.withTags("consumer", consumer).increment();
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
                duplicates.withTags("consumer", consumer, "class", duplicateClass).increment();
            }
            if (sinceFirst != null) {
                duplicateAge.withTags("consumer", consumer)
                        .record(sinceFirst.isNegative() ? Duration.ZERO : sinceFirst);
            }
        }
    }
}
