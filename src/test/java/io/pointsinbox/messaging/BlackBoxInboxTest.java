package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.BrokerTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.pointsinbox.support.RawAmqpMessage;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * The contract seen from outside only (AMQP in; HTTP, broker and database state out), so that
 * {@link BlackBoxInboxIT} runs the same cases against the packaged application, JVM or native.
 */
@QuarkusTest
public class BlackBoxInboxTest extends BrokerTestBase {

    @Test
    void theSameMessageTwiceIsAppliedOnce() {
        UUID id = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 11, 100));
            sender.sendText(grant(id, 11, 100));
        }
        awaitDrained();
        awaitCounter("duplicate", 1, counted);

        given().get("/users/11/points").then().statusCode(200).body("balance", equalTo(100));
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
    }

    @RepeatedTest(2)
    void parallelSendersOfTheSameMessagesApplyEachOnce() throws Exception {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            bodies.add(grant(UUID.randomUUID(), 12, 10));
        }
        MetricsDelta counted = MetricsDelta.start();
        ParallelSenders.sameMessagesFromEach(bodies, 4);
        awaitDrained();
        awaitCounter("duplicate", 150, counted);

        given().get("/users/12/points").then().statusCode(200).body("balance", equalTo(500));
        assertEquals(50, Ledger.inboxRows(CONSUMER), "one inbox row per distinct message");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        given().get("/admin/reconciliation").then().statusCode(200).body("consistent", equalTo(true));
    }

    @Test
    void poisonIsDeadLetteredWithItsReason() {
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(UUID.randomUUID(), 13, 0));
        }
        await("dead-lettered").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 1);
        String reason = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON).get(0);
        assertTrue(reason.startsWith("payload.amount:"), reason);
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
    }

    /**
     * Bytes that are not valid AMQP never reach the connector (see {@link UndecodableDeliveries}): as packaged, the
     * library's decode failure is still counted, the broker keeps the message, and the grant after it is applied.
     */
    @Test
    void aDeliveryThatIsNotValidAmqpIsCountedAndLeftWithTheBroker() throws Exception {
        MetricsDelta counted = MetricsDelta.start();
        UUID valid = UUID.randomUUID();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.UNKNOWN_TYPE_CODE));
            sender.sendText(grant(valid, 15, 5));
        }
        try {
            awaitCounter("undecodable", 1, counted);
            await("the grant after it").atMost(Duration.ofSeconds(30)).until(() -> Ledger.balance(CONSUMER, 15) == 5);
            await("kept by the broker, settled").atMost(Duration.ofSeconds(10)).until(() -> ArtemisTestResource.queue(
                    ArtemisTestResource.ADDRESS).getMessageCount() == 1
                    && ArtemisTestResource.queue(ArtemisTestResource.ADDRESS).getDeliveringCount() == 0);
            assertEquals(1, counted.messages(CONSUMER, "undecodable"));
            assertEquals(0, counted.messages(CONSUMER, "failed"));
        } finally {
            ArtemisTestResource.purge(ArtemisTestResource.ADDRESS);
        }
    }

    @Test
    void httpProcessedThenDuplicateThenBadInput() {
        UUID id = UUID.randomUUID();
        post(grant(id, 14, 7)).statusCode(200).body("status", equalTo("processed"));
        post(grant(id, 14, 7)).statusCode(200).body("status", equalTo("duplicate_ignored"));
        post("{\"type\":\"PointsGranted.v1\"}").statusCode(400).body("field", equalTo("messageId"));
        given().get("/users/14/points").then().statusCode(200).body("balance", equalTo(7));
    }

    /**
     * A backlog as a pod meets it after a restart: thousands of grants queued at once, with duplicates, redemptions
     * and poison mixed in, from parallel senders. It is also the training run of the recommended packaging's AOT
     * cache (bin/build-recommended), so it exercises every path a message can take.
     */
    @Test
    void aBacklogOfGrantsDuplicatesRedemptionsAndPoisonDrainsToTheExpectedBalances() throws Exception {
        int users = 100;
        long[] expected = new long[users];
        List<String> bodies = new ArrayList<>();
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 3_000; i++) {
            int user = random.nextInt(users);
            int amount = 1 + random.nextInt(100);
            expected[user] += amount;
            bodies.add(grant(UUID.randomUUID(), 20_000 + user, amount));
        }
        for (int i = 0; i < 300; i++) {
            bodies.add(bodies.get(random.nextInt(3_000)));
        }
        for (int i = 0; i < 100; i++) {
            int user = random.nextInt(users);
            bodies.add(AmqpTestClient.redeem(UUID.randomUUID(), 20_000 + user, 1_000_000));
        }
        for (int i = 0; i < 30; i++) {
            bodies.add(grant(UUID.randomUUID(), 20_000 + i, 0));
        }
        java.util.Collections.shuffle(bodies, random);
        MetricsDelta counted = MetricsDelta.start();

        ParallelSenders.split(bodies, 4);
        await("backlog drained").atMost(Duration.ofMinutes(3))
                .until(() -> counted.messages(CONSUMER, "processed") >= 3_000
                        && counted.messages(CONSUMER, "insufficient_balance") >= 100
                        && deadLettered() >= 30);
        awaitDrained();

        assertEquals(3_000, counted.messages(CONSUMER, "processed"), "each grant applied once");
        assertEquals(300, counted.messages(CONSUMER, "duplicate"), "each repeat ignored");
        assertEquals(100, counted.messages(CONSUMER, "insufficient_balance"),
                "no redemption of a million points is covered");
        assertEquals(30, deadLettered(), "the poison, dead-lettered");
        for (int user = 0; user < users; user++) {
            given().get("/users/" + (20_000 + user) + "/points").then().statusCode(expected[user] == 0 ? 404 : 200);
            if (expected[user] > 0) {
                given().get("/users/" + (20_000 + user) + "/points").then().body("balance",
                        equalTo((int) expected[user]));
            }
        }
        given().get("/admin/reconciliation").then().statusCode(200).body("consistent", equalTo(true));
    }

    private static io.restassured.response.ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then();
    }
}
