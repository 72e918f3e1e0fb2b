package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;

/**
 * A poison message whose dead-letter copy the broker refuses (here the dead-letter address is full and its policy is
 * FAIL) is never acknowledged: each attempt counts as an unconfirmed dead letter and is handed back, and after its
 * delivery attempts the broker moves the original to its own dead-letter address. Meanwhile valid messages keep
 * being applied and the service stays ready, also across a broker outage while the copy waits.
 * <p>
 * Artemis keeps the refused copy waiting (the connector holds it until the address has room) rather than failing
 * its send, so these tests pass whatever the connector's retry budget. The unbounded budget in
 * application.properties guards against what was seen with the retries set to 0: a send that fails after its last
 * retry makes the connector close every channel, the inbound one included.
 */
@QuarkusTest
@TestProfile(DeadLetterRefusedTest.FullDeadLetterAddress.class)
class DeadLetterRefusedTest extends InboxTestBase {

    /** Seconds between the connector's retries of a failed send (up to 5 by default): several fall in a test. */
    private static final int RETRY_INTERVAL = 1;

    public static class FullDeadLetterAddress implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("points.dead-letter-address", ArtemisTestResource.FULL, "points.dead-letter-timeout", "2s",
                    "mp.messaging.outgoing.points-dead-letter.retry-on-fail-interval",
                    String.valueOf(RETRY_INTERVAL));
        }
    }

    @Test
    void refusedDeadLetterCopiesNeitherLoseThePoisonNorStopConsumption() throws Exception {
        fillTheFullAddress();
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText("{refused dead letter");
            sender.sendText(grant(UUID.randomUUID(), 911, 9));
        }
        await("the broker moves the original after its delivery attempts").atMost(Duration.ofSeconds(60))
                .until(() -> deadLettered() == 1);
        awaitCounter("processed", 1, counted);

        // The refused copy still waits in the connector; the service stays ready and keeps consuming.
        await("ready throughout").during(Duration.ofSeconds(8L * RETRY_INTERVAL))
                .atMost(Duration.ofSeconds(20)).until(DeadLetterRefusedTest::ready);
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(UUID.randomUUID(), 911, 4));
        }
        awaitCounter("processed", 2, counted);
        awaitDrained();

        assertEquals(ArtemisTestResource.MAX_DELIVERY_ATTEMPTS,
                counted.deadLetterUnconfirmed(),
                "every attempt counted as a dead-letter copy not accepted");
        assertEquals(ArtemisTestResource.MAX_DELIVERY_ATTEMPTS, counted.messages(CONSUMER, "failed"),
                "each refused attempt also counts as failed");
        List<String> reasons = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON);
        assertEquals(1, reasons.size(), "the original, moved by the broker: " + reasons);
        assertNull(reasons.get(0), "moved by the broker, not copied by the service");
        assertEquals(1, ArtemisTestResource.pending(ArtemisTestResource.FULL), "the full address took no copy");
        assertEquals(13, Ledger.balance(CONSUMER, 911), "both valid messages applied once");
        assertEquals(2, Ledger.totalRows("inbox_message"), "nothing stored for the poison message");
        assertNothingUnacknowledged();
    }

    @Test
    void aBrokerOutageWhileADeadLetterCopyIsRetriedDoesNotStopConsumption() throws Exception {
        fillTheFullAddress();
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText("{dead letter retried across an outage");
        }
        await("the first copy is not accepted").atMost(Duration.ofSeconds(30))
                .until(() -> counted.deadLetterUnconfirmed() > 0);

        // Down while the refused copy waits in the connector.
        ArtemisTestResource.restart(Duration.ofSeconds(10L * RETRY_INTERVAL));

        await("ready again after the outage").atMost(Duration.ofSeconds(60)).until(DeadLetterRefusedTest::ready);
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(UUID.randomUUID(), 912, 6));
        }
        awaitCounter("processed", 1, counted);
        await("the broker moves the original after its delivery attempts").atMost(Duration.ofSeconds(60))
                .until(() -> deadLettered() == 1);
        awaitDrained();
        assertEquals(6, Ledger.balance(CONSUMER, 912), "the message sent after the outage was applied once");
        assertEquals(1, Ledger.totalRows("inbox_message"), "nothing stored for the poison message");
        assertNothingUnacknowledged();
    }

    /**
     * Leaves the full address holding one message. A copy still retried in the background from an earlier test may
     * land first once the address is purged, and then the filler is the one refused.
     */
    private static void fillTheFullAddress() throws Exception {
        ArtemisTestResource.purge(ArtemisTestResource.FULL);
        try (AmqpTestClient filler = new AmqpTestClient(ArtemisTestResource.FULL)) {
            filler.sendText("fills the address: it refuses every message after this one");
        } catch (IllegalStateException refusedAfterALeftoverCopy) {
            // the address is full either way
        }
        await("the full address holds its one message").atMost(Duration.ofSeconds(10))
                .until(() -> ArtemisTestResource.pending(ArtemisTestResource.FULL) == 1);
    }


    private static boolean ready() {
        return RestAssured.get("/q/health/ready").statusCode() == 200;
    }
}
