package io.pointsinbox.inbox;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.message.Message;

import org.junit.jupiter.api.Test;

import io.pointsinbox.messaging.DeadLetters;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.MetricsDelta;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * A sender reusing an id for a different message: never applied, told apart from a true duplicate, and kept (AMQP:
 * the whole message on the dead-letter address; HTTP: a 409).
 */
@QuarkusTest
class IdConflictTest extends InboxTestBase {

    @Test
    void anIdReusedWithADifferentPayloadOverAmqpIsCountedNotAppliedAndDeadLettered() {
        UUID id = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        List<LogCapture.Line> warnings;
        try (LogCapture deadLetters = LogCapture.of(DeadLetters.class);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 5_005, 10));
            awaitDrained();
            Message conflicting = Message.Factory.create();
            conflicting.setBody(new AmqpValue(grant(id, 5_005, 999)));
            conflicting.setApplicationProperties(new ApplicationProperties(Map.of("tenant", "tenant-7")));
            sender.send(conflicting);
            sender.sendText(grant(id, 5_005, 10));
            awaitDrained();
            awaitCounter("id_conflict", 1, counted);
            awaitCounter("duplicate", 1, counted);
            warnings = List.copyOf(deadLetters.linesWithContext());
        }

        assertEquals(1, counted.messages(CONSUMER, "id_conflict"), "one id conflict");
        assertEquals(1, counted.messages(CONSUMER, "duplicate"), "one true duplicate");
        assertEquals(1, counted.duplicates(CONSUMER, "id_conflict"),
                "the conflict is a duplicate class of its own");
        assertEquals(10, Ledger.balance(CONSUMER, 5_005), "only the first message applied");
        // The second message is a sender's bug: its content must survive somewhere other than a log line.
        List<Message> copies = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER, 1, Duration.ofSeconds(10));
        assertEquals(1, copies.size(), "the conflicting message is dead-lettered, the true duplicate is not");
        Message copy = copies.get(0);
        assertEquals("tenant-7", copy.getApplicationProperties().getValue().get("tenant"),
                "the dead letter is the whole original, application properties included");
        assertEquals(grant(id, 5_005, 999), ((AmqpValue) copy.getBody()).getValue(), "the original body");
        String reason = (String) copy.getApplicationProperties().getValue().get(DeadLetters.REASON);
        // Both written the same way, as the fields the payload hash compares, so the difference shows at a glance.
        assertEquals("id_conflict: first payload PointsGranted.v1 {\"userId\":5005,\"amount\":10}, this one "
                + "PointsGranted.v1 {\"userId\":5005,\"amount\":999}", reason, "the reason names both payloads");
        // The warning an operator reads names the message whose id was reused, though it has no AMQP message-id.
        assertEquals(1, warnings.size(), "one dead-letter warning: " + warnings);
        assertEquals(id.toString(), warnings.get(0).context().get("messageId"), "the warning's log context");
        assertEquals(CONSUMER, warnings.get(0).context().get("consumer"), "the warning's log context");
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
