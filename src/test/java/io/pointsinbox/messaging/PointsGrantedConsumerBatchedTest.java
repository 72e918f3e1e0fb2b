package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.BatchedMode;
import io.pointsinbox.support.FailureInjector;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.MetricsDelta;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link PointsGrantedConsumerTest}, in batched mode, where a failed commit is the batch's. */
@QuarkusTest
@TestProfile(BatchedMode.class)
class PointsGrantedConsumerBatchedTest extends PointsGrantedConsumerTest {

    /** The batch's commit fails: the batch rolls back and its messages are applied alone, without a failed delivery. */
    @Test
    @Override
    void aFailedCommitIsRolledBackNamedAndAppliedOnceOnRedelivery() {
        UUID id = UUID.randomUUID();
        failures.failAtCommitTimes(id, 1);
        MetricsDelta counted = MetricsDelta.start();
        try (LogCapture connector = LogCapture.of(CONNECTOR_LOG);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 308, 9));
            awaitDrained();
            await("applied").atMost(Duration.ofSeconds(30)).until(() -> counted.messages(CONSUMER, "processed") >= 1);
            assertEquals(0, failedDeliveries(connector).size(), "no delivery failed: " + failedDeliveries(connector));
        }
        assertEquals(0, counted.messages(CONSUMER, "failed"), "the batch's failed commit is not the delivery's");
        assertEquals(0, counted.messages(CONSUMER, "duplicate"), "the batch's inbox row was rolled back with it");
        assertEquals(9, Ledger.balance(CONSUMER, 308), "applied once, alone after the batch rolled back");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertNothingUnacknowledged();
    }

    /**
     * The batch's commit fails, and so does the commit of the same message applied alone (a refused commit, a checked
     * exception): that delivery alone fails, named with what refused the commit, with no failure of the batch thread,
     * and its redelivery is applied once, as in per-message mode.
     */
    @Test
    void aCommitThatFailsAgainAloneFailsThatDeliveryOnly() {
        UUID id = UUID.randomUUID();
        failures.failAtCommitTimes(id, 2);
        MetricsDelta counted = MetricsDelta.start();
        try (LogCapture connector = LogCapture.of(CONNECTOR_LOG);
                LogCapture batcher = LogCapture.of(GrantBatcher.class);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 309, 11));
            awaitDrained();
            await("applied").atMost(Duration.ofSeconds(30)).until(() -> counted.messages(CONSUMER, "processed") >= 1);

            List<String> failed = failedDeliveries(connector);
            assertEquals(1, failed.size(), "one failed delivery: " + failed);
            assertTrue(failed.get(0).startsWith("Message " + id + " for consumer " + CONSUMER + " failed on delivery"
                    + " attempt 1, rolled back and handed back to the broker: ")
                    && failed.get(0).endsWith("(cause: " + FailureInjector.InjectedFailure.class.getName()
                            + ": injected commit failure for " + id + ")"), "named with its cause: " + failed);
            assertEquals(List.of(), batcher.lines().stream().filter(line -> line.startsWith("ERROR")).toList(),
                    "the batch thread itself did not fail");
        }
        assertEquals(1, counted.messages(CONSUMER, "failed"), "the attempt whose commit failed alone");
        assertEquals(11, Ledger.balance(CONSUMER, 309), "applied once, by the redelivery");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertNothingUnacknowledged();
    }
}
