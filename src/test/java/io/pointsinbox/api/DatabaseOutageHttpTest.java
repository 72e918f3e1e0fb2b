package io.pointsinbox.api;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PostgresTestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
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

    private static ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then();
    }
}
