package io.pointsinbox.inbox;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.Metrics;
import io.pointsinbox.support.PostgresTestDatabase;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/** A sender reusing an id for a different message: never applied twice, and told apart from a true duplicate. */
@QuarkusTest
@QuarkusTestResource(ArtemisTestResource.class)
@QuarkusTestResource(PostgresTestDatabase.class)
class IdConflictTest extends InboxTestBase {

    @Test
    void anIdReusedWithADifferentPayloadOverAmqpIsCountedAsAConflictAndNotApplied() {
        UUID id = UUID.randomUUID();
        double conflictsBefore = Metrics.messages(CONSUMER, "id_conflict");
        double duplicatesBefore = Metrics.messages(CONSUMER, "duplicate");
        double conflictClassBefore = Metrics.duplicates(CONSUMER, "id_conflict");
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 5_005, 10));
            awaitDrained();
            sender.sendText(grant(id, 5_005, 999));
            sender.sendText(grant(id, 5_005, 10));
        }
        awaitDrained();
        awaitCounter("id_conflict", 1, conflictsBefore);
        awaitCounter("duplicate", 1, duplicatesBefore);

        assertEquals(1, Metrics.messages(CONSUMER, "id_conflict") - conflictsBefore, "one id conflict");
        assertEquals(1, Metrics.messages(CONSUMER, "duplicate") - duplicatesBefore, "one true duplicate");
        assertEquals(1, Metrics.duplicates(CONSUMER, "id_conflict") - conflictClassBefore,
                "the conflict is a duplicate class of its own");
        assertEquals(10, Ledger.balance(CONSUMER, 5_005), "only the first message applied");
        assertEquals(0, deadLettered(), "acknowledged, not dead-lettered");
        assertNothingUnacknowledged();
    }

    @Test
    void anIdReusedWithADifferentPayloadOverHttpIs409() {
        UUID id = UUID.randomUUID();
        post(grant(id, 5_006, 10)).statusCode(200);
        post(grant(id, 5_007, 10)).statusCode(409)
                .body("error", equalTo("id_conflict"), "field", equalTo("messageId"));
        post(grant(id, 5_006, 10)).statusCode(200).body("status", equalTo("duplicate_ignored"));

        assertEquals(10, Ledger.balance(CONSUMER, 5_006), "applied once");
        assertEquals(0, Ledger.balance(CONSUMER, 5_007), "the conflicting message was not applied");
    }

    private static io.restassured.response.ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then();
    }
}
