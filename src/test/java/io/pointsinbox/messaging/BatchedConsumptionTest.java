package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.BatchedMode;
import io.pointsinbox.support.FailureInjector;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.Metrics;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * What only batched mode can get wrong: duplicates, repeats and id conflicts inside one batch, and one failing
 * member in a batch of healthy ones. A batch is made deterministic by holding both batch threads inside their
 * transactions while the messages queue up, then letting one thread take them all.
 */
@QuarkusTest
@TestProfile(BatchedMode.class)
class BatchedConsumptionTest extends InboxTestBase {

    @Test
    void oneBatchTellsFreshMessagesRepeatsRedeliveriesAndIdConflictsApart() throws Exception {
        UUID earlier = UUID.randomUUID();
        UUID fresh = UUID.randomUUID();
        UUID contested = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(earlier, 800, 1));
            awaitCounter("processed", 1, counted);
            try (Held held = holdBothBatchThreads(sender)) {
                sender.sendText(grant(fresh, 802, 10));
                sender.sendText(grant(fresh, 802, 10)); // the same message twice in one batch
                sender.sendText(grant(contested, 802, 20));
                sender.sendText(grant(contested, 804, 40)); // the same id, another payload
                sender.sendText(grant(earlier, 800, 1)); // a redelivery of a committed message
                sender.sendText(grant(other, 803, 5));
                held.releaseInTurn(6);
            }
        }
        awaitDrained();
        awaitCounter("processed", 6, counted);

        assertTrue(Metrics.series("points_inbox_batch_size_max") >= 6, "the six messages were one batch");
        assertEquals(6, counted.messages(CONSUMER, "processed"), "earlier, 2 held, 3 fresh ids");
        assertEquals(2, counted.messages(CONSUMER, "duplicate"), "the repeat and the redelivery");
        assertEquals(1, counted.messages(CONSUMER, "id_conflict"), "the reused id");
        assertEquals(1, counted.duplicates(CONSUMER, "in_flight"),
                "the repeat within the batch was in flight with its first occurrence");
        assertEquals(1, counted.duplicates(CONSUMER, "redelivery"),
                "the copy of the committed message is a redelivery");
        assertEquals(1, Ledger.balance(CONSUMER, 800), "the committed message is not applied again");
        assertEquals(5, Ledger.balance(CONSUMER, 803), "the fresh message alone in its id");
        // Workers hand messages over in no fixed order: either payload of the contested id may come first.
        long withFirstPayload = Ledger.balance(CONSUMER, 802);
        long withSecondPayload = Ledger.balance(CONSUMER, 804);
        assertTrue(withFirstPayload == 30 && withSecondPayload == 0 || withFirstPayload == 10 && withSecondPayload == 40,
                "exactly one payload of the contested id applied: 802=" + withFirstPayload + ", 804="
                        + withSecondPayload);
        assertEquals(1, Ledger.inboxRows(CONSUMER, contested), "one inbox row for the contested id");
        assertEquals(1, Ledger.inboxRows(CONSUMER, fresh), "one inbox row for the repeated id");
        assertEquals(1, deadLettered(), "the reused id's second payload, kept as evidence on the dead-letter address");
        assertNothingUnacknowledged();
    }

    @Test
    void aFailingMemberFailsAloneAndItsBatchMatesAreAppliedOnce() throws Exception {
        UUID failing = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        UUID third = UUID.randomUUID();
        failures.failTimes(failing, 1);
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox(); Held held = holdBothBatchThreads(sender)) {
            sender.sendText(grant(failing, 811, 100));
            sender.sendText(grant(second, 811, 20));
            sender.sendText(grant(third, 811, 3));
            held.releaseInTurn(3);
        }
        awaitDrained();
        awaitCounter("processed", 5, counted);

        assertEquals(1, counted.messages(CONSUMER, "failed"),
                "only the failing member failed, once; its batch-mates were applied alone");
        assertEquals(5, counted.messages(CONSUMER, "processed"), "2 held and the 3 members");
        assertEquals(0, counted.messages(CONSUMER, "duplicate"),
                "nothing of the rolled-back batch survived to make a retry a duplicate");
        assertEquals(123, Ledger.balance(CONSUMER, 811), "each member applied once");
        assertEquals(3, Ledger.grants(CONSUMER, 811), "three grants");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
    }

    @RepeatedTest(3)
    void batchesRacingForTheSameIdsNeverRollBack() throws Exception {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            bodies.add(grant(UUID.randomUUID(), 821, 10));
        }
        MetricsDelta counted = MetricsDelta.start();
        ParallelSenders.sameMessagesFromEach(bodies, 4);
        awaitDrained();
        awaitCounter("duplicate", 150, counted);

        assertEquals(500, Ledger.balance(CONSUMER, 821), "50 distinct messages of 10 points, each sent 4 times");
        assertEquals(50, Ledger.grants(CONSUMER, 821), "one grant per distinct message");
        // The unique index decides between two batches claiming one id: the second waits and skips it. A batch that
        // decided from what it saw before inserting would only be stopped by the ledger's own key, and roll back.
        assertEquals(0, counted.series("points_inbox_batch_rollbacks_total"),
                "no batch rolled back over an id another batch claimed");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
    }

    /** Both batch threads, each inside the transaction of a one-message batch. */
    private Held holdBothBatchThreads(AmqpTestClient sender) throws InterruptedException {
        MetricsDelta counted = MetricsDelta.start();
        FailureInjector.Hold first = holdOne(sender, 870);
        assertTrue(first.awaitEntered(30), "first batch thread held");
        FailureInjector.Hold second = holdOne(sender, 871);
        assertTrue(second.awaitEntered(30), "second batch thread held");
        return new Held(first, second, counted);
    }

    private FailureInjector.Hold holdOne(AmqpTestClient sender, long user) {
        UUID id = UUID.randomUUID();
        FailureInjector.Hold hold = failures.hold(id);
        sender.sendText(grant(id, user, 1));
        return hold;
    }

    /** Two held batches; released one after the other, so that one thread takes everything queued meanwhile. */
    private record Held(FailureInjector.Hold first, FailureInjector.Hold second, MetricsDelta counted)
            implements AutoCloseable {

        void releaseInTurn(int queued) {
            await("messages queued for a batch").atMost(Duration.ofSeconds(30))
                    .until(() -> Metrics.series("points_inbox_batch_queued") >= queued);
            first.release();
            await("first held batch committed").atMost(Duration.ofSeconds(30))
                    .until(() -> counted.messages(CONSUMER, "processed") >= 1);
            second.release();
        }

        @Override
        public void close() {
            first.release();
            second.release();
        }
    }
}
