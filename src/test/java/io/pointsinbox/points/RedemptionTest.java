package io.pointsinbox.points;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.pointsinbox.support.AmqpTestClient.redeem;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

@QuarkusTest
class RedemptionTest extends InboxTestBase {

    @RepeatedTest(3)
    void fiftyRedemptionsSentByFourWorkersEachTakeTheirTenPointsOnce() throws Exception {
        long user = 1_001;
        post("points-granted", grant(UUID.randomUUID(), user, 1000)).statusCode(200);
        List<String> redemptions = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            redemptions.add(redeem(UUID.randomUUID(), user, 10));
        }
        MetricsDelta counted = MetricsDelta.start();
        ParallelSenders.sameMessagesFromEach(redemptions, 4);
        awaitDrained();
        awaitCounter("duplicate", 150, counted);

        // A consumer without an inbox would reach 0 (and then reject); one that checks the balance before
        // acting without a lock would overdraw.
        assertEquals(500, Ledger.balance(CONSUMER, user), "1000 minus 50 distinct redemptions of 10");
        assertEquals(51, Ledger.grants(CONSUMER, user), "one grant and 50 redemptions recorded");
        assertEquals(0, counted.messages(CONSUMER, "insufficient_balance"),
                "no redemption was short of points");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
        assertConsistent();
    }

    @RepeatedTest(3)
    void concurrentGrantsAndRedemptionsOnOneUserEndArithmeticallyCorrectAndNeverNegative() throws Exception {
        long user = 2_002;
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            messages.add(grant(UUID.randomUUID(), user, 10));
        }
        for (int i = 0; i < 150; i++) {
            messages.add(redeem(UUID.randomUUID(), user, 10));
        }
        Collections.shuffle(messages);
        MetricsDelta counted = MetricsDelta.start();
        ParallelSenders.split(messages, 8);
        awaitDrained();
        await("all settled").atMost(Duration.ofSeconds(30)).until(() -> counted.messages(CONSUMER, "processed")
                + counted.messages(CONSUMER, "insufficient_balance") >= 250);

        long rejected = (long) (counted.messages(CONSUMER, "insufficient_balance"));
        long redeemed = 150 - rejected;
        long balance = Ledger.balance(CONSUMER, user);
        assertEquals(1000 - 10 * redeemed, balance, "1000 granted minus the redemptions that were applied");
        assertTrue(balance >= 0, "never below zero, got " + balance);
        // Reading the balance and then debiting would overdraw under this race; the database's check constraint
        // would turn that into failed deliveries, so none may fail.
        assertEquals(0, counted.messages(CONSUMER, "failed"), "no delivery failed");
        assertTrue(rejected >= 50, "at least 50 redemptions could not be covered, got " + rejected);
        assertEquals(100 + redeemed, Ledger.grants(CONSUMER, user), "one entry per applied message");
        assertEquals(250, Ledger.inboxRows(CONSUMER), "every message, applied or rejected, is recorded once");
        assertConsistent();
    }

    @Test
    void aRejectedRedemptionIsRecordedAndItsDuplicateAnswersTheSameEvenOnceTheBalanceWouldCoverIt() {
        long user = 3_003;
        UUID redemption = UUID.randomUUID();
        post("points-granted", grant(UUID.randomUUID(), user, 5)).statusCode(200);
        post("points-redeemed", redeem(redemption, user, 10)).statusCode(422)
                .body("status", equalTo("rejected_insufficient_balance"), "outcome",
                        equalTo("rejected_insufficient_balance"));
        post("points-granted", grant(UUID.randomUUID(), user, 100)).statusCode(200);
        post("points-redeemed", redeem(redemption, user, 10)).statusCode(422)
                .body("status", equalTo("duplicate_ignored"), "outcome", equalTo("rejected_insufficient_balance"));

        assertEquals(105, Ledger.balance(CONSUMER, user), "the rejected redemption was never applied");
        assertEquals(1, Ledger.inboxRows(CONSUMER, redemption), "the rejection is recorded once");
    }

    @Test
    void aRejectedRedemptionOverAmqpIsAcknowledgedNotRetried() {
        long user = 4_004;
        UUID redemption = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(redeem(redemption, user, 10));
        }
        awaitDrained();
        awaitCounter("insufficient_balance", 1, counted);

        assertEquals(0, counted.messages(CONSUMER, "failed"), "a business rejection is not a failure");
        assertEquals(1, Ledger.inboxRows(CONSUMER, redemption), "recorded");
        assertEquals(0, deadLettered(), "not dead-lettered");
        assertNothingUnacknowledged();
    }

    private static void assertConsistent() {
        given().get("/admin/reconciliation").then().statusCode(200).body("consistent", equalTo(true));
    }

    private static io.restassured.response.ValidatableResponse post(String endpoint, String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/" + endpoint).then();
    }
}
