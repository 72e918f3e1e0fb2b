package io.pointsinbox.api;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PostgresTestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;

/** The HTTP API while PostgreSQL does not answer: a 503 the client can retry, and a retry applied once. */
@QuarkusTest
class DatabaseOutageHttpTest extends InboxTestBase {

    @Test
    void aDatabaseOutageIsA503WithRetryAfterAndTheSameMessageSentAgainIsAppliedOnce() throws Exception {
        UUID id = UUID.randomUUID();
        String body = grant(id, 7_301, 25);
        PostgresTestDatabase.proxy().cut();
        try {
            for (ValidatableResponse response : new ValidatableResponse[] { post(body),
                    given().get("/users/7301/points").then(), given().get("/users/7301/grants").then() }) {
                response.statusCode(503).contentType(ContentType.JSON).header("Retry-After", "5")
                        .body("error", equalTo("database_unavailable"), "field", nullValue(),
                                "message", equalTo(ApiErrorMapper.DATABASE_UNAVAILABLE));
            }
        } finally {
            PostgresTestDatabase.proxy().restore();
        }
        // A client retries as told; the pool may hand out a connection the outage closed, answered 503 again.
        await("the grant accepted once the database answers").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500)).until(() -> post(body).extract().statusCode() == 200);
        post(body).statusCode(200).body("status", equalTo("duplicate_ignored"));
        given().get("/users/7301/points").then().statusCode(200).body("balance", equalTo(25));
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertEquals(25, Ledger.balance(CONSUMER, 7_301), "applied once");
    }

    /**
     * A database closed to new sessions for maintenance ({@code ALLOW_CONNECTIONS false}, its sessions ended): every
     * new connection is refused with SQL state 55000, not a connection error. A request is a 503 to retry, not a 500;
     * a grant sent over AMQP meanwhile waits and is applied once the database lets the service in again, as is the
     * request sent again.
     */
    @Test
    void aDatabaseClosedToNewSessionsIsA503AndItsMessagesAreAppliedOnceItOpens() throws Exception {
        long user = 7_700L + System.nanoTime() % 200;
        String overHttp = grant(UUID.randomUUID(), user, 5);
        UUID overAmqp = UUID.randomUUID();
        PostgresTestDatabase.closeToNewSessions(true);
        try {
            for (ValidatableResponse response : new ValidatableResponse[] { post(overHttp),
                    given().get("/users/" + user + "/points").then() }) {
                response.statusCode(503).header("Retry-After", "5").body("error", equalTo("database_unavailable"));
            }
            try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
                sender.sendText(grant(overAmqp, user, 7));
            }
            await("consumption paused").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> given().get("/q/health/ready").statusCode() == 503);
        } finally {
            PostgresTestDatabase.closeToNewSessions(false);
        }
        await("the request accepted once the database lets the service in").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500)).until(() -> post(overHttp).extract().statusCode() == 200);
        await("the grant sent over AMQP applied").atMost(Duration.ofSeconds(30))
                .until(() -> Ledger.inboxRows(CONSUMER, overAmqp) == 1);
        awaitDrained();
        assertEquals(12, Ledger.balance(CONSUMER, user), "both applied once");
        assertEquals(2, Ledger.grants(CONSUMER, user), "one ledger entry each");
    }

    /**
     * A failover or a restarted PostgreSQL ends every session of the service ("terminating connection due to
     * administrator command", SQL state 57P01): the requests in flight, and those that next take a pooled connection,
     * get a 503 to retry, never a 500, and every retried grant is applied once. Eight clients, more than the cores,
     * each retry on 503 while the backends are terminated again and again.
     */
    @Test
    void killedDatabaseSessionsAreA503ToRetryAndEveryRetryIsAppliedOnce() throws Exception {
        long user = 7_400L + System.nanoTime() % 500;
        int clients = 8;
        int perClient = 40;
        ConcurrentMap<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<?>> sending = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            sending.add(pool.submit(() -> {
                for (int i = 0; i < perClient; i++) {
                    String body = grant(UUID.randomUUID(), user, 1);
                    for (int attempt = 1;; attempt++) {
                        ExtractableResponse<Response> response = post(body).extract();
                        statuses.computeIfAbsent(response.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                        if (response.statusCode() != 503) {
                            break;
                        }
                        assertEquals("5", response.header("Retry-After"));
                        assertTrue(List.of("database_unavailable", "transaction_rolled_back")
                                .contains(response.jsonPath().getString("error")), response.asString());
                        assertTrue(attempt < 20, "a grant still refused after 20 attempts");
                    }
                }
                return null;
            }));
        }
        long killed = 0;
        while (sending.stream().anyMatch(f -> !f.isDone())) {
            killed += Ledger.endServiceSessions();
            Thread.sleep(150);
        }
        pool.shutdown();
        for (Future<?> f : sending) {
            f.get();
        }

        assertTrue(killed > 0, "the application's sessions were terminated");
        assertEquals(Set.of(200, 503), statuses.keySet(), "only 200 and 503 (retried), never a 500: " + statuses);
        assertEquals(clients * perClient, statuses.get(200).get(), "one 200 per grant: " + statuses);
        assertEquals(clients * perClient, Ledger.balance(CONSUMER, user), "every grant applied once");
        assertEquals(clients * perClient, Ledger.grants(CONSUMER, user), "one ledger entry per grant");
    }

    private static ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then();
    }
}
