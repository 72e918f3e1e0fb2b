package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.FailureInjector;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class PointsGrantedConsumerTest extends InboxTestBase {

    @Test
    void sameMessageTwiceIsAppliedOnceAndTheDuplicateIsAcknowledged() {
        UUID id = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 101, 100));
            awaitCounter("processed", 1, counted);
            sender.sendText(grant(id, 101, 100));
        }
        awaitDrained();
        awaitCounter("duplicate", 1, counted);
        assertEquals(1, counted.duplicates(CONSUMER, "redelivery"),
                "a duplicate of a committed delivery is classified as a redelivery");
        assertEquals(0, counted.duplicates(CONSUMER, "in_flight"), "nothing was in flight");

        assertEquals(100, Ledger.balance(CONSUMER, 101), "balance after one message delivered twice");
        assertEquals(1, Ledger.grants(CONSUMER, 101), "grants after one message delivered twice");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "inbox rows for the message id");
        assertEquals(1, counted.messages(CONSUMER, "processed"), "processed count");
        assertEquals(1, counted.messages(CONSUMER, "duplicate"), "duplicate count");
        // The duplicate is detected inside the method (early flush) and acknowledged: had it surfaced at commit,
        // it would have been nacked and, after the delivery attempts, dead-lettered.
        assertEquals(0, deadLettered(), "a duplicate must never be dead-lettered");
        assertTrue(io.restassured.RestAssured.given().get("/q/metrics").asString()
                .contains("points_inbox_duplicate_age_seconds_count{consumer=\"points-ledger\""),
                "the duplicate's age since the first delivery is recorded");
        assertNothingUnacknowledged();
    }

    @RepeatedTest(5)
    void parallelSendersOfTheSameMessagesApplyEachOnce() throws Exception {
        int senders = 4;
        int messages = 50;
        long user = 202;
        int failingFirstAttempts = 5;
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            UUID id = UUID.randomUUID();
            if (i < failingFirstAttempts) {
                // A failed first attempt must not leave a claim behind that turns the retry into a "duplicate".
                failures.failTimes(id, 1);
            }
            bodies.add(grant(id, user, 10));
        }
        MetricsDelta counted = MetricsDelta.start();
        ParallelSenders.sameMessagesFromEach(bodies, senders);
        awaitDrained();
        awaitCounter("duplicate", 150, counted);

        assertEquals(500, Ledger.balance(CONSUMER, user), "50 distinct messages of 10 points, each sent 4 times");
        assertEquals(50, Ledger.grants(CONSUMER, user), "one grant per distinct message");
        assertEquals(50, Ledger.inboxRows(CONSUMER), "one inbox row per distinct message");
        assertEquals(150, counted.messages(CONSUMER, "duplicate"), "duplicates counted");
        assertEquals(150, counted.duplicates(CONSUMER, "in_flight") + counted.duplicates(CONSUMER, "redelivery"), "every duplicate classified as in flight or redelivery");
        // Racing duplicates are decided by the unique index inside the transaction: none of them may fail.
        assertEquals(failingFirstAttempts, counted.messages(CONSUMER, "failed"),
                "only the injected failures failed");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
    }

    @Test
    void failureOnFirstDeliveryRollsBackTheInboxRowAndTheRedeliveryAppliesOnce() {
        UUID id = UUID.randomUUID();
        failures.failTimes(id, 1);
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 303, 70));
        }
        awaitDrained();
        await("redelivery settled").atMost(Duration.ofSeconds(30)).until(() -> counted.messages(CONSUMER, "processed")
                + counted.messages(CONSUMER, "duplicate") >= 1);

        assertEquals(1, counted.messages(CONSUMER, "failed"), "the first attempt failed");
        // Had the inbox row of the failed attempt survived, the redelivery would have been taken for a duplicate.
        assertEquals(0, counted.messages(CONSUMER, "duplicate"), "redelivery is not a duplicate");
        assertEquals(70, Ledger.balance(CONSUMER, 303), "applied once by the redelivery");
        assertEquals(1, Ledger.grants(CONSUMER, 303), "one grant");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
    }

    /** A duplicate is a normal outcome: one DEBUG line names it, nothing about it at INFO or above. */
    @Test
    void aDuplicateIsLoggedOnceAtDebugAndNeverAsAWarningOrError() {
        UUID id = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        List<LogCapture.Line> lines;
        try (LogCapture everything = LogCapture.of("").debugging(PointsMessageHandler.class);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 309, 3));
            awaitDrained();
            sender.sendText(grant(id, 309, 3));
            awaitDrained();
            awaitCounter("duplicate", 1, counted);
            lines = List.copyOf(everything.linesWithContext());
        }
        List<LogCapture.Line> aboutIt = lines.stream().filter(line -> line.isAbout(id)).toList();
        assertEquals(1, aboutIt.size(), "one line about the message, the duplicate's: " + aboutIt);
        assertTrue(aboutIt.get(0).text().startsWith("DEBUG Duplicate message " + id + " for consumer " + CONSUMER),
                "at DEBUG: " + aboutIt.get(0));
        assertEquals(CONSUMER, aboutIt.get(0).context().get("consumer"), "in the consumer's log context");
        assertEquals(3, Ledger.balance(CONSUMER, 309), "applied once");
    }

    @Test
    void aFailedDeliveryIsLoggedUnderItsMessageIdAndAttempt() {
        UUID id = UUID.randomUUID();
        failures.failTimes(id, 2);
        MetricsDelta counted = MetricsDelta.start();
        try (LogCapture connector = LogCapture.of(CONNECTOR_LOG);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 307, 7));
            awaitDrained();
            await("applied").atMost(Duration.ofSeconds(30)).until(() -> counted.messages(CONSUMER, "processed") >= 1);

            // The connector logs the failure once the delivery's log context is gone: its text names the message.
            List<String> failed = failedDeliveries(connector);
            assertEquals(2, failed.size(), "one error line per failed attempt: " + failed);
            for (int attempt = 1; attempt <= 2; attempt++) {
                String named = "Message " + id + " for consumer " + CONSUMER + " failed on delivery attempt " + attempt
                        + ", rolled back and handed back to the broker: ";
                assertTrue(failed.stream().anyMatch(text -> text.startsWith(named)
                        && text.endsWith("injected failure for " + id)), named + " in " + failed);
            }
        }
        assertEquals(2, counted.messages(CONSUMER, "failed"), "two failed attempts");
        assertEquals(7, Ledger.balance(CONSUMER, 307), "applied once, on the third attempt");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertNothingUnacknowledged();
    }

    /** A commit that fails after every statement ran: rolled back, named in the log, applied once on redelivery. */
    @Test
    void aFailedCommitIsRolledBackNamedAndAppliedOnceOnRedelivery() {
        UUID id = UUID.randomUUID();
        failures.failAtCommitTimes(id, 1);
        MetricsDelta counted = MetricsDelta.start();
        try (LogCapture connector = LogCapture.of(CONNECTOR_LOG);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 308, 9));
            awaitDrained();
            await("applied").atMost(Duration.ofSeconds(30)).until(() -> counted.messages(CONSUMER, "processed") >= 1);

            List<String> failed = failedDeliveries(connector);
            String named = "Message " + id + " for consumer " + CONSUMER + " failed on delivery attempt 1, rolled back "
                    + "and handed back to the broker: ";
            assertEquals(1, failed.size(), "one error line: " + failed);
            assertTrue(failed.get(0).startsWith(named), named + " in " + failed);
            // The commit's own exception says only that it could not commit: the text adds what made it fail.
            assertTrue(failed.get(0).endsWith("(cause: " + FailureInjector.InjectedFailure.class.getName()
                    + ": injected commit failure for " + id + ")"), "the root cause named: " + failed);
        }
        assertEquals(1, counted.messages(CONSUMER, "failed"), "the attempt whose commit failed");
        assertEquals(0, counted.messages(CONSUMER, "duplicate"), "its inbox row was rolled back with it");
        assertEquals(9, Ledger.balance(CONSUMER, 308), "applied once, by the redelivery");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertNothingUnacknowledged();
    }

    static final String CONNECTOR_LOG = "io.smallrye.reactive.messaging.provider";

    /** The messages of the exceptions the connector logged: one per failed delivery. */
    static List<String> failedDeliveries(LogCapture connector) {
        return connector.linesWithContext().stream().filter(line -> line.thrown() != null)
                .map(line -> line.thrown().getMessage()).toList();
    }

    @Test
    void deliveryThatAlwaysFailsIsDeadLetteredAfterTheAttemptsAndLaterMessagesFlow() {
        UUID doomed = UUID.randomUUID();
        UUID healthy = UUID.randomUUID();
        failures.failAlways(doomed);
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(doomed, 404, 40));
            sender.sendText(grant(healthy, 404, 5));
        }
        await("dead-lettered").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 1);
        awaitDrained();

        assertEquals(ArtemisTestResource.MAX_DELIVERY_ATTEMPTS, counted.messages(CONSUMER, "failed"),
                "one failure per delivery attempt");
        assertEquals(5, Ledger.balance(CONSUMER, 404), "only the healthy message applied");
        assertEquals(0, Ledger.inboxRows(CONSUMER, doomed), "no inbox row for the dead-lettered message");
        assertEquals(1, Ledger.inboxRows(CONSUMER, healthy), "the later message was applied");
        assertNothingUnacknowledged();
    }

    @Test
    void poisonMessagesGoToTheDeadLetterAddressOnTheirFirstDelivery() {
        MetricsDelta counted = MetricsDelta.start();
        UUID negative = UUID.randomUUID();
        UUID unknownType = UUID.randomUUID();
        List<LogCapture.Line> lines;
        try (LogCapture deadLetters = LogCapture.of(DeadLetters.class)) {
            try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
                sender.sendText("{not json");
                sender.sendText("{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":505,\"amount\":10}}");
                sender.sendText(grant(negative, 505, -10));
                sender.sendText(grant(unknownType, 505, 10).replace("PointsGranted.v1", "PointsStolen.v1"));
                sender.sendText("{\"messageId\":\"not-a-uuid\",\"type\":\"PointsGranted.v1\",\"payload\":"
                        + "{\"userId\":505,\"amount\":10}}");
            }
            await("poison dead-lettered").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 5);
            awaitDrained();
            lines = List.copyOf(deadLetters.linesWithContext());
        }
        // A refused message whose id was readable is named by it on its dead-letter line; the others cannot be.
        assertEquals(5, lines.size(), "one dead-letter line each: " + lines);
        for (UUID named : List.of(negative, unknownType)) {
            assertEquals(1, lines.stream().filter(line -> named.toString().equals(line.context().get("messageId"))
                    && CONSUMER.equals(line.context().get("consumer"))).count(), "the line about " + named + ": " + lines);
        }
        assertEquals(3, lines.stream().filter(line -> !line.context().containsKey("messageId")).count(),
                "no id for the malformed, the id-less and the non-UUID one: " + lines);

        List<String> reasons = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON);
        // Deliveries run concurrently, so the dead-letter queue's order is not the sending order.
        for (String expected : List.of("body: malformed JSON", "messageId: missing",
                "payload.amount: must be between 1 and", "type: unknown message type 'PointsStolen.v1'",
                "messageId: must be a UUID")) {
            assertTrue(reasons.stream().anyMatch(reason -> reason.startsWith(expected)),
                    "a dead-letter reason starting with '" + expected + "' in " + reasons);
        }
        assertEquals(5, counted.messages(CONSUMER, "rejected"), "rejected count");
        // Refusing one takes a dead-letter round trip to the broker: its time is in the processing histogram too.
        assertEquals(5, counted.timed(CONSUMER, "rejected"), "each rejection timed");
        assertEquals(0, counted.messages(CONSUMER, "failed"), "poison never enters the retry loop");
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored for poison");
        assertEquals(0, Ledger.totalRows("user_points"), "nothing applied for poison");
        assertNothingUnacknowledged();
    }

    @Test
    void dataSectionBodyAndAmqpMessageIdAreAccepted() {
        UUID id = UUID.randomUUID();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendJsonData("{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":606,\"amount\":6}}",
                    id.toString());
            sender.sendJsonData(grant(id, 606, 6), null);
        }
        awaitDrained();
        await().atMost(Duration.ofSeconds(10)).until(() -> Ledger.inboxRows(CONSUMER, id) == 1);

        assertEquals(6, Ledger.balance(CONSUMER, 606), "the AMQP message-id and the body's id are the same key");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row for the id");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
    }

    @Test
    void theAmqpMessageIdIsReadInEveryTypeAmqpAllowsAndRefusedByNameWhenItIsNoUuid() {
        UUID asUuid = UUID.randomUUID();
        UUID asString = UUID.randomUUID();
        UUID asBinaryText = UUID.randomUUID();
        UUID inTheBody = UUID.randomUUID();
        String noId = "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":707,\"amount\":%d}}";
        // Sixteen raw bytes, not UTF-8 (0xa3 cannot start a character).
        byte[] rawUuid = java.nio.ByteBuffer.allocate(16).putLong(0xa3f5c6d211114222L).putLong(0x8333444455556666L)
                .array();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.send(withId(asUuid, noId.formatted(1)));
            sender.send(withId(asString.toString().toUpperCase(), noId.formatted(2)));
            sender.send(withId(asString.toString(), noId.formatted(2)));
            sender.send(withId(new org.apache.qpid.proton.amqp.Binary(
                    asBinaryText.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)), noId.formatted(4)));
            // The body's messageId decides; the AMQP message-id is then not read, whatever its type.
            sender.send(withId(org.apache.qpid.proton.amqp.UnsignedLong.valueOf(7), grant(inTheBody, 707, 8)));
            sender.send(withId(org.apache.qpid.proton.amqp.UnsignedLong.valueOf(42), noId.formatted(16)));
            sender.send(withId(new org.apache.qpid.proton.amqp.Binary(rawUuid), noId.formatted(32)));
            sender.send(withId("ID:sender-1:1:1:1", noId.formatted(64)));
        }
        await("three refused").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 3);
        awaitDrained();

        assertEquals(1 + 2 + 4 + 8, Ledger.balance(CONSUMER, 707), "each UUID once, the upper-case twin a duplicate");
        for (UUID id : List.of(asUuid, asString, asBinaryText, inTheBody)) {
            assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row under " + id);
        }
        String rule = "message-id: the body has no messageId, so the AMQP message-id must be a UUID (an AMQP uuid, or"
                + " a string holding one), got ";
        List<String> reasons = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON);
        assertEquals(java.util.Set.of(rule + "the ulong 42",
                rule + "16 raw bytes (binary 0xa3f5c6d2111142228333444455556666), which platforms order differently"
                        + " as a UUID: send an AMQP uuid or the UUID's text",
                rule + "'ID:sender-1:1:1:1': that is a JMS message id, which the JMS client makes anew at every send;"
                        + " put the sender's own messageId in the body"),
                java.util.Set.copyOf(reasons), "the reasons name what was sent");
        assertNothingUnacknowledged();
    }

    @Test
    void aPlaceholderIdIsDeadLetteredInTheBodyAndAsTheAmqpMessageIdAndNothingIsApplied() {
        UUID nil = new UUID(0L, 0L);
        UUID valid = UUID.randomUUID();
        String noId = "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":708,\"amount\":%d}}";
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            // A sender whose id field was never set: two different grants under the same placeholder id.
            sender.sendText(grant(nil, 708, 1));
            sender.sendText(grant(nil, 708, 2));
            sender.send(withId(nil, noId.formatted(4)));
            sender.send(withId(new UUID(-1L, -1L).toString(), noId.formatted(8)));
            sender.sendText(grant(valid, 708, 16));
        }
        await("four refused").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 4);
        awaitDrained();
        await().atMost(Duration.ofSeconds(10)).until(() -> Ledger.inboxRows(CONSUMER, valid) == 1);

        assertEquals(16, Ledger.balance(CONSUMER, 708), "only the grant with a real id is applied");
        assertEquals(0, Ledger.inboxRows(CONSUMER, nil), "no inbox row under the placeholder");
        List<String> reasons = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON);
        String placeholder = " is a placeholder, not an id: the sender must set a unique id on every message";
        List<String> expected = List.of("messageId: the nil UUID " + nil + placeholder,
                "messageId: the nil UUID " + nil + placeholder, "message-id: the nil UUID " + nil + placeholder,
                "message-id: the max UUID " + new UUID(-1L, -1L) + placeholder);
        assertEquals(expected.stream().sorted().toList(), reasons.stream().sorted().toList(),
                "each placeholder refused by name");
        assertEquals(4, counted.messages(CONSUMER, "rejected"), "rejected, not duplicates or id conflicts");
        assertEquals(0, counted.messages(CONSUMER, "duplicate"), "no duplicate counted");
        assertNothingUnacknowledged();
    }

    @Test
    void whatASenderWritesInAnIdOrAKeyCannotForgeOrFloodALogLine() {
        String noId = "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":709,\"amount\":%d}}";
        String forged = "abc\n00:00:00,000 ERROR [io.pointsinbox] forged\u2028line";
        byte[] raw = { 0x3b, 0x67, (byte) 0xdb, (byte) 0x87, 0x0a, (byte) 0x8f };
        List<LogCapture.Line> lines;
        try (LogCapture deadLetters = LogCapture.of(DeadLetters.class)) {
            try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
                sender.send(withId(forged, noId.formatted(1)));
                sender.send(withId("y".repeat(6000), noId.formatted(2)));
                sender.send(withId(new org.apache.qpid.proton.amqp.Binary(raw), noId.formatted(4)));
                sender.sendText("{\"messageId\":\"not\\na uuid" + "z".repeat(3000) + "\",\"type\":\"PointsGranted.v1\","
                        + "\"payload\":{\"userId\":709,\"amount\":8}}");
                sender.sendText("{\"messageId\":\"" + UUID.randomUUID() + "\",\"type\":\"PointsGranted.v1\","
                        + "\"payload\":{\"userId\":709,\"amount\":16,\"x\\ny\":1,\"x\\ny\":2}}");
            }
            await("five refused").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 5);
            awaitDrained();
            lines = List.copyOf(deadLetters.linesWithContext());
        }
        assertEquals(5, lines.size(), "one dead-letter line each: " + lines);
        for (LogCapture.Line line : lines) {
            assertTrue(line.text().codePoints().noneMatch(c -> c == '\n' || c == '\r' || c == 0x2028),
                    "one line, whatever the sender wrote: " + line.text());
            assertTrue(line.text().length() < 600, "bounded: " + line.text().length() + " characters");
        }
        List<String> texts = lines.stream().map(LogCapture.Line::text).toList();
        assertTrue(texts.stream().anyMatch(text -> text.contains("(AMQP message-id abc\\n00:00:00,000 ERROR "
                + "[io.pointsinbox] forged\\u2028line)")), "the forged line shown escaped, as data: " + texts);
        assertTrue(texts.stream().anyMatch(text -> text.contains("(AMQP message-id " + "y".repeat(64) + "...)")),
                "a long id cut: " + texts);
        assertTrue(texts.stream().anyMatch(text -> text.contains("(AMQP message-id binary 0x3b67db870a8f)")),
                "a binary id in hexadecimal: " + texts);

        List<String> reasons = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON);
        assertEquals(5, reasons.size(), "five dead letters: " + reasons);
        for (String reason : reasons) {
            assertTrue(reason.codePoints().noneMatch(c -> c == '\n' || c == '\r' || c == 0x2028),
                    "the reason is one line: " + reason);
        }
        assertTrue(reasons.contains("messageId: must be a UUID, got 'not\\na uuid" + "z".repeat(53) + "...'"),
                "the body's id escaped and cut in its reason: " + reasons);
        assertTrue(reasons.contains("payload.x\\ny: appears twice in the same object; every key once"),
                "the key escaped in its reason: " + reasons);
        assertEquals(0, Ledger.totalRows("user_points"), "nothing applied");
        assertNothingUnacknowledged();
    }

    private static org.apache.qpid.proton.message.Message withId(Object messageId, String body) {
        org.apache.qpid.proton.message.Message message = org.apache.qpid.proton.message.Message.Factory.create();
        message.setMessageId(messageId);
        message.setDurable(true);
        message.setBody(new org.apache.qpid.proton.amqp.messaging.AmqpValue(body));
        return message;
    }

    @Test
    void duplicateArrivingDuringTheFirstTransactionWaitsForItThenIsAcknowledgedAsDuplicate() throws Exception {
        UUID id = UUID.randomUUID();
        FailureInjector.Hold hold = failures.hold(id);
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 707, 25));
            assertTrue(hold.awaitEntered(30), "the first delivery should reach the ledger and hold its transaction");
            sender.sendText(grant(id, 707, 25));
            await("duplicate waiting on the inbox's unique index").atMost(Duration.ofSeconds(30))
                    .until(() -> Ledger.backendsWaitingOnLocks() >= 1);
            assertEquals(0, counted.messages(CONSUMER, "duplicate"),
                    "the duplicate cannot be decided while the first delivery is uncommitted");
            assertEquals(0, Ledger.inboxRows(CONSUMER, id), "nothing committed yet");
        } finally {
            hold.release();
        }
        awaitDrained();
        awaitCounter("duplicate", 1, counted);

        assertEquals(1, counted.duplicates(CONSUMER, "in_flight"),
                "a duplicate that waited for its first delivery is classified as in flight");
        assertEquals(0, counted.duplicates(CONSUMER, "redelivery"), "not as a redelivery");
        assertEquals(25, Ledger.balance(CONSUMER, 707), "applied once");
        assertEquals(1, Ledger.grants(CONSUMER, 707), "one grant");
        assertEquals(0, counted.messages(CONSUMER, "failed"), "the waiting duplicate did not fail");
        assertEquals(0, deadLettered(), "the waiting duplicate was acknowledged, not dead-lettered");
        assertNothingUnacknowledged();
    }
}
