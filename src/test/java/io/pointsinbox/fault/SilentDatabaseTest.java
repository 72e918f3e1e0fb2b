package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.oneOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.FailureInjector;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.pointsinbox.support.PostgresTestDatabase;
import io.pointsinbox.support.Workload;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * A database that falls silent without closing anything, as across a network partition or a primary whose node is
 * lost while a new one takes its address: every connection the pool holds leads nowhere, new ones reach a database
 * that answers. Nothing wakes a thread blocked on such a connection but the socket timeout
 * ({@code points.database-socket-timeout}, 4 s here); the statement fails, the delivery is handed back, the probe
 * finds the database through a fresh connection and the pool's other idle connections are discarded, and the
 * redelivery is applied once. Across a partition the database keeps the abandoned session's transaction, and its
 * locks, until its idle-in-transaction timeout, which the service sets to the same bound.
 */
@QuarkusTest
@TestProfile(SilentDatabaseTest.ShortSocketTimeout.class)
class SilentDatabaseTest extends InboxTestBase {

    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(4);

    public static class ShortSocketTimeout implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            // The socket timeout must be above the transaction timeout, the dead-letter timeout below it.
            return Map.of("points.database-socket-timeout", SOCKET_TIMEOUT.toSeconds() + "s",
                    "quarkus.transaction-manager.default-transaction-timeout", "3s",
                    "points.dead-letter-timeout", "1s");
        }
    }

    /**
     * The silence falls while a delivery is inside its transaction, so its commit goes nowhere, and four senders
     * race the same grants meanwhile.
     */
    @Test
    void deliveriesOnADatabaseThatFellSilentAreHandedBackAndAppliedOnceOverNewConnections() throws Exception {
        Workload workload = new Workload(300, 0.2, 41_000, 20, 21);
        UUID held = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();

        FailureInjector.Hold hold = failures.hold(held);
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(held, 41_900, 9));
        }
        assertTrue(hold.awaitEntered(30), "the first delivery is inside its transaction");
        // A partition: the database keeps that transaction open, with its locks, until it gives up on the session.
        PostgresTestDatabase.proxy().partitionOpenConnections();
        long silencedAt = System.nanoTime();
        hold.release();
        ParallelSenders.sameMessagesFromEach(workload.messages(), 4);

        await("everything applied over new connections").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique() + 1
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        Duration drainedAfter = Duration.ofNanos(System.nanoTime() - silencedAt);
        // A few socket timeouts (the stuck deliveries, a probe), then the drain; the kernel alone would take about 15
        // minutes to give up on the silent connections.
        assertTrue(drainedAfter.compareTo(Duration.ofSeconds(60)) < 0,
                "drained " + drainedAfter + " after the silence");

        workload.expectedBalances().forEach((user, expected) -> assertEquals(expected, Ledger.balance(CONSUMER, user),
                "balance of user " + user));
        assertEquals(9, Ledger.balance(CONSUMER, 41_900), "the delivery whose commit went nowhere, applied once");
        assertEquals(1, Ledger.inboxRows(CONSUMER, held), "one inbox row for it");
        assertEquals(workload.unique() + 1, Ledger.totalRows("point_grant"), "one ledger entry per unique id");
        assertEquals(workload.unique() + 1, counted.messages(CONSUMER, "processed"), "each id processed once");
        assertEquals(workload.messages().size() * 4 - workload.unique(), counted.messages(CONSUMER, "duplicate"),
                "every other copy a duplicate");
        assertTrue(counted.messages(CONSUMER, "failed") >= 1, "the deliveries caught by the silence failed");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
        given().get("/admin/reconciliation").then().statusCode(200).body("consistent", equalTo(true));
        given().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    void aRequestOnADatabaseThatFellSilentIsA503WithinTheSocketTimeoutAndItsRetryIsAppliedOnce() throws Exception {
        long user = 42_000L + System.nanoTime() % 1_000;
        // Requests first, several at once, so that the pool holds several idle connections that the silence strands.
        List<CompletableFuture<Void>> warming = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            warming.add(CompletableFuture.runAsync(() -> post(grant(UUID.randomUUID(), user, 1))
                    .statusCode(200).body("status", equalTo("processed"))));
        }
        for (CompletableFuture<Void> request : warming) {
            request.get();
        }
        UUID id = UUID.randomUUID();
        String body = grant(id, user, 25);

        PostgresTestDatabase.proxy().silenceOpenConnections();
        long sentAt = System.nanoTime();
        post(body).statusCode(503).contentType(ContentType.JSON).header("Retry-After", "5")
                .body("error", oneOf("database_unavailable", "transaction_rolled_back"));
        Duration answeredAfter = Duration.ofNanos(System.nanoTime() - sentAt);
        assertTrue(answeredAfter.compareTo(SOCKET_TIMEOUT.multipliedBy(3)) < 0, "answered after " + answeredAfter);

        // The 503 also closed the pool's other idle connections, all of them stranded: the retry opens a fresh one.
        post(body).statusCode(200).body("status", equalTo("processed"));
        post(body).statusCode(200).body("status", equalTo("duplicate_ignored"), "outcome", equalTo("processed"));
        assertEquals(8 + 25, Ledger.balance(CONSUMER, user), "the request applied once, by its retry");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
    }

    /**
     * A database that accepts the next connection and never answers its handshake (a host frozen or cut off
     * mid-failover, a proxy whose backend is gone), while the connections already open have gone silent. The pool
     * opens its connections one at a time, on one thread: without a bound on the handshake that thread would wait for
     * good, no connection could be opened again, and consumption would stay paused however soon the database
     * answered again.
     */
    @Test
    void aConnectionWhoseHandshakeIsNeverAnsweredDoesNotStopThePoolForGood() throws Exception {
        long user = 43_000L + System.nanoTime() % 1_000;
        UUID id = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        // The application's startup packet names it; the tests' own reads go to PostgreSQL directly.
        PostgresTestDatabase.proxy().silenceNextConnectionSending("points-inbox".getBytes(StandardCharsets.US_ASCII));
        PostgresTestDatabase.proxy().silenceOpenConnections();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, user, 7));
        }

        await("applied over a connection opened after the silent one").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> Ledger.inboxRows(CONSUMER, id) == 1
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        assertTrue(PostgresTestDatabase.proxy().trapSprung(), "a connection's handshake went unanswered");
        assertEquals(7, Ledger.balance(CONSUMER, user), "applied once");
        assertEquals(1, counted.messages(CONSUMER, "processed"));
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        await("ready again").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);
    }

    private static io.restassured.response.ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then();
    }
}
