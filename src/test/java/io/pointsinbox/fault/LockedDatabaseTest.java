package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.api.ApiErrorMapper;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * A database that answers but blocks: a lock on {@code user_points} (a migration's, or a long manual transaction's)
 * held past the transaction timeout. The probe's {@code select 1} still answers, so consumption is not paused; each
 * delivery waiting on the lock is rolled back at the timeout, inbox row included, and handed back, and its
 * redelivery applies it once the lock is gone. Duplicates sent by a second producer race the same ids meanwhile.
 * Over HTTP the same rollback is a 503 the client can retry, and its retry is applied once.
 */
@QuarkusTest
@TestProfile(LockedDatabaseTest.ShortTransactionTimeout.class)
class LockedDatabaseTest extends InboxTestBase {

    static final int TIMEOUT_SECONDS = 3;
    private static final int MESSAGES = 4;
    private static final int SENDERS = 2;
    private static final long AMOUNT = 25;

    public static class ShortTransactionTimeout implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            // The dead-letter timeout must stay below the transaction timeout (checked at start-up).
            return Map.of("quarkus.transaction-manager.default-transaction-timeout", TIMEOUT_SECONDS + "s",
                    "points.dead-letter-timeout", "1s");
        }
    }

    @Test
    void deliveriesBlockedByALockPastTheTransactionTimeoutAreRolledBackAndAppliedOnceWhenItIsReleased()
            throws Exception {
        long user = 9_100_000L + System.nanoTime() % 100_000;
        List<UUID> ids = new ArrayList<>();
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            bodies.add(grant(id, user, AMOUNT));
        }
        MetricsDelta counted = MetricsDelta.start();
        List<String> failedDeliveries;
        try (LogCapture connector = LogCapture.of("io.smallrye.reactive.messaging.provider");
                Connection lock = lockUserPoints()) {
            ParallelSenders.sameMessagesFromEach(bodies, SENDERS);
            await("deliveries waiting on the lock").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(50)).until(() -> Ledger.backendsWaitingOnLocks() >= 1);
            // The lock outlives the transaction timeout, but not two: the broker's 3 delivery attempts are not spent.
            await("a delivery rolled back at the transaction timeout while the lock is held")
                    .atMost(Duration.ofSeconds(TIMEOUT_SECONDS + 3)).pollInterval(Duration.ofMillis(50))
                    .until(() -> counted.messages(CONSUMER, "failed") >= 1);
            for (UUID id : ids) {
                assertEquals(0, Ledger.inboxRows(CONSUMER, id),
                        "a rolled-back attempt leaves no inbox row behind (the lock is still held): " + id);
            }
            assertEquals(0, counted.messages(CONSUMER, "processed"), "nothing applied while the lock is held");
            lock.commit();
            failedDeliveries = connector.linesWithContext().stream().filter(line -> line.thrown() != null)
                    .map(line -> line.thrown().getMessage()).toList();
        }
        // Each failed attempt says why, in words (its console line is one WARN: DeliveryFailureLogFilterTest), rather
        // than the "transaction is not active" of the commit Narayana refused after rolling it back.
        assertTrue(!failedDeliveries.isEmpty() && failedDeliveries.stream().allMatch(text -> text.contains(
                ", rolled back and handed back to the broker: its transaction outlived the transaction timeout ("
                        + TIMEOUT_SECONDS + "s, quarkus.transaction-manager.default-transaction-timeout)")),
                "named as rolled back at the timeout: " + failedDeliveries);

        awaitDrained();
        await("every delivery settled").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> counted.messages(CONSUMER, "processed") + counted.messages(CONSUMER, "duplicate")
                        >= MESSAGES * SENDERS);
        assertEquals(MESSAGES, counted.messages(CONSUMER, "processed"), "each message applied once");
        assertDuplicates(counted.messages(CONSUMER, "duplicate"), MESSAGES * (SENDERS - 1));
        assertTrue(counted.messages(CONSUMER, "failed") >= 1, "the timed-out attempts are counted as failed");
        assertEquals(MESSAGES * AMOUNT, Ledger.balance(CONSUMER, user), "balance: each grant once");
        assertEquals(MESSAGES, Ledger.grants(CONSUMER, user), "one ledger entry per message");
        for (UUID id : ids) {
            assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row for " + id);
        }
        assertEquals(0, deadLettered(), "a lock shorter than the delivery attempts dead-letters nothing");
        assertNothingUnacknowledged();
    }

    @Test
    void aRequestBlockedByALockPastTheTransactionTimeoutIsA503WithRetryAfterAndItsRetryIsAppliedOnce()
            throws Exception {
        long user = 9_200_000L + System.nanoTime() % 100_000;
        UUID id = UUID.randomUUID();
        String body = grant(id, user, AMOUNT);
        try (Connection lock = lockUserPoints()) {
            post(body).statusCode(503).contentType(ContentType.JSON).header("Retry-After", "5")
                    .body("error", equalTo("transaction_rolled_back"), "field", nullValue(),
                            "message", equalTo(ApiErrorMapper.NOT_COMMITTED));
            assertEquals(0, Ledger.inboxRows(CONSUMER, id), "the rolled-back request left no inbox row");
            lock.commit();
        }
        post(body).statusCode(200).body("status", equalTo("processed"));
        post(body).statusCode(200).body("status", equalTo("duplicate_ignored"), "outcome", equalTo("processed"));
        assertEquals(AMOUNT, Ledger.balance(CONSUMER, user), "applied once, by the retry");
        assertEquals(1, Ledger.grants(CONSUMER, user), "one ledger entry");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
    }

    /** Per message, exactly every other sender's copy of each message ends as a duplicate. */
    void assertDuplicates(double duplicates, int otherCopies) {
        assertEquals(otherCopies, duplicates, "every other copy is a duplicate");
    }

    /** A connection of its own holding an exclusive lock on {@code user_points} until it commits or closes. */
    static Connection lockUserPoints() throws SQLException {
        Connection lock = Ledger.connection();
        try (Statement statement = lock.createStatement()) {
            lock.setAutoCommit(false);
            statement.execute("lock table user_points in access exclusive mode");
            return lock;
        } catch (SQLException e) {
            lock.close();
            throw e;
        }
    }

    private static ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then();
    }
}
