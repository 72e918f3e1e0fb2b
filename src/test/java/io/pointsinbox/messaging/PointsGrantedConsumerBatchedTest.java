package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.BatchedMode;
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
}
