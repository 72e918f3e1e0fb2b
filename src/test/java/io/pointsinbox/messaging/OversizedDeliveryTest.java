package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.MetricsDelta;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A message larger than the most the service reads ({@code POINTS_MAX_MESSAGE_SIZE}, 20 KiB) is refused while it
 * arrives, not after it has been buffered whole: rejected, so that the broker moves it to its dead-letter address
 * at once, counted and warned about, and the messages around it are applied once on the connection opened after it.
 */
@QuarkusTest
class OversizedDeliveryTest extends InboxTestBase {

    private static final long USER = 91;

    @Inject
    OversizedDeliveries oversized;

    @Test
    void aMessageOverTheBoundIsRejectedUnreadAndTheMessagesAroundItAreAppliedOnce() {
        assertEquals(1, oversized.boundedReceivers(), "the inbound receiver carries the bound from its attach");
        MetricsDelta counted = MetricsDelta.start();
        long deadBefore = deadLettered();
        long balanceBefore = Ledger.balance(CONSUMER, USER);
        String head = "{\"messageId\":\"" + UUID.randomUUID() + "\",\"type\":\"PointsGranted.v1\",\"payload\":"
                + "{\"userId\":" + USER + ",\"amount\":1},\"padding\":\"";
        // Two megabytes: far over the bound, and too big for the connector to hold whole unnoticed in a test heap.
        String big = head + "x".repeat(2 * 1024 * 1024) + "\"}";
        try (LogCapture capture = LogCapture.of(OversizedDeliveries.class);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            List<String> warnings = capture.lines();
            sender.sendText(grant(UUID.randomUUID(), USER, 5));
            sender.sendJsonData(big, null);
            sender.sendText(grant(UUID.randomUUID(), USER, 7));

            awaitCounter("oversized", 1, counted);
            await("both grants applied").atMost(Duration.ofSeconds(30))
                    .until(() -> Ledger.balance(CONSUMER, USER) == balanceBefore + 12);
            await("the oversized message on the dead-letter address").atMost(Duration.ofSeconds(10))
                    .until(() -> deadLettered() == deadBefore + 1);
            awaitDrained();

            // Once, or again if the closing connection overtook the rejection at the broker (a delivery attempt
            // each time).
            assertTrue(warnings.size() >= 1 && warnings.size() <= ArtemisTestResource.MAX_DELIVERY_ATTEMPTS,
                    "one warning per rejection: " + warnings);
            assertTrue(warnings.get(0).startsWith("WARN A message on points-granted is larger than 20480 bytes, the"
                    + " most this service reads: rejected unread"), warnings.get(0));
            assertEquals(warnings.size(), counted.messages(CONSUMER, "oversized"), 0.0, "counted with each warning");
            assertEquals(2.0, counted.messages(CONSUMER, "processed"), "the grants, each applied once");
            assertEquals(0.0, counted.messages(CONSUMER, "rejected"), "not read, so not dead-lettered by the service");

            List<Message> dead = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER, 1, Duration.ofSeconds(10));
            assertEquals(1, dead.size());
            assertEquals(big.length(), ((Data) dead.get(0).getBody()).getValue().getLength(),
                    "moved whole by the broker, from the original");
            await("the link of the new connection bounded too").atMost(Duration.ofSeconds(10))
                    .until(() -> oversized.boundedReceivers() == 1);
            await("granted POINTS_LINK_CREDIT, not the connector's 1,000").atMost(Duration.ofSeconds(10))
                    .until(() -> oversized.linkCredits().equals(List.of(256)));
            given().get("/q/health/ready").then().statusCode(200);
        }
    }

    /**
     * Without the connector's "listening" line (its log category raised above INFO), the link of the connection
     * opened after a rejection is bounded by the periodic check within seconds, which says so, and the next message
     * past the bound is rejected on it.
     */
    @Test
    void withoutTheConnectorsLineThePeriodicCheckBoundsTheNextLink() {
        java.util.logging.Logger connector = java.util.logging.Logger.getLogger(OversizedDeliveries.CONNECTOR_LOGGER);
        Level before = connector.getLevel();
        connector.setLevel(Level.WARNING);
        MetricsDelta counted = MetricsDelta.start();
        long balanceBefore = Ledger.balance(CONSUMER, USER);
        String big = "{\"padding\":\"" + "x".repeat(64 * 1024) + "\"}";
        try (LogCapture capture = LogCapture.of(OversizedDeliveries.class);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            List<String> lines = capture.lines();
            sender.sendJsonData(big, null);
            awaitCounter("oversized", 1, counted);
            await("the new link bounded by the periodic check, with a warning").atMost(Duration.ofSeconds(15))
                    .until(() -> lines.stream().anyMatch(line -> line.contains("only by the periodic check")));
            assertTrue(lines.stream().anyMatch(line -> line.contains("keeps the connector's link credit of 1000")),
                    "too late for the credit, and says so: " + lines);
            assertEquals(1, oversized.boundedReceivers());

            sender.sendJsonData(big, null);
            sender.sendText(grant(UUID.randomUUID(), USER, 4));
            awaitCounter("oversized", 2, counted);
            await("the grant behind them").atMost(Duration.ofSeconds(30))
                    .until(() -> Ledger.balance(CONSUMER, USER) == balanceBefore + 4);
            awaitDrained();
            assertEquals(0.0, counted.messages(CONSUMER, "rejected"), "refused unread, not by the service");
        } finally {
            connector.setLevel(before);
        }
        await("bounded again").atMost(Duration.ofSeconds(15)).until(() -> oversized.boundedReceivers() == 1);
    }
}
