package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.activemq.artemis.api.core.Message;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.CoreTestClient;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Senders on Artemis's CORE protocol (a JMS application on the Artemis client, or {@code artemis producer}) publish
 * to the same address: the broker converts their messages for the service's AMQP link, a {@code TextMessage} to an
 * AMQP string value and a {@code BytesMessage} to a data section, with the JMS message id as the AMQP message-id.
 */
@QuarkusTest
class CoreProtocolSendersTest extends InboxTestBase {

    private static final String INBOX = ArtemisTestResource.ADDRESS;

    @Test
    void aTextMessageAndABytesMessageAreAppliedOnceAndTheirResendsAreDuplicates() {
        UUID text = UUID.randomUUID();
        UUID bytes = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        try (CoreTestClient jms = new CoreTestClient()) {
            // A resend is a new JMS message with a new JMS message id: the body's messageId is what makes it a repeat.
            for (int copy = 0; copy < 2; copy++) {
                jms.sendText(INBOX, grant(text, 801, 5), Map.of());
                jms.sendBytes(INBOX, grant(bytes, 801, 7).getBytes(StandardCharsets.UTF_8), Map.of());
            }
        }
        awaitDrained();
        awaitCounter("duplicate", 2, counted);

        assertEquals(12, Ledger.balance(CONSUMER, 801), "each grant applied once");
        assertEquals(1, Ledger.inboxRows(CONSUMER, text));
        assertEquals(1, Ledger.inboxRows(CONSUMER, bytes));
        assertEquals(2, counted.messages(CONSUMER, "processed"));
        assertEquals(2, counted.messages(CONSUMER, "duplicate"), "the resends counted as duplicates");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
    }

    @RepeatedTest(3)
    void parallelSendersOfTheSameMessagesOverCoreApplyEachOnce() throws Exception {
        int senders = 4;
        int messages = 40;
        long user = 802;
        int failingFirstAttempts = 4;
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            UUID id = UUID.randomUUID();
            if (i < failingFirstAttempts) {
                failures.failTimes(id, 1);
            }
            ids.add(id);
        }
        List<String> bodies = ids.stream().map(id -> grant(id, user, 10)).toList();
        MetricsDelta counted = MetricsDelta.start();
        // Each producer sends every message in its own order, and each send is a TextMessage or a BytesMessage at
        // random: the copies of one id race each other in both encodings.
        ParallelSenders.sameMessagesFromEachOverCore(bodies, senders, (jms, body) -> {
            if (java.util.concurrent.ThreadLocalRandom.current().nextBoolean()) {
                jms.sendText(INBOX, body, Map.of());
            } else {
                jms.sendBytes(INBOX, body.getBytes(StandardCharsets.UTF_8), Map.of());
            }
        });
        awaitDrained();
        awaitCounter("duplicate", 120, counted);

        assertEquals(400, Ledger.balance(CONSUMER, user), "40 distinct messages of 10 points, each sent 4 times");
        assertEquals(40, Ledger.grants(CONSUMER, user), "one grant per distinct message");
        assertEquals(40, Ledger.inboxRows(CONSUMER), "one inbox row per distinct message");
        assertEquals(120, counted.messages(CONSUMER, "duplicate"), "duplicates counted");
        assertEquals(failingFirstAttempts, counted.messages(CONSUMER, "failed"), "only the injected failures failed");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
    }

    @Test
    void aFailedFirstDeliveryIsAppliedOnceWhenTheBrokerRedeliversIt() {
        UUID id = UUID.randomUUID();
        failures.failTimes(id, 1);
        MetricsDelta counted = MetricsDelta.start();
        try (CoreTestClient jms = new CoreTestClient()) {
            jms.sendText(INBOX, grant(id, 803, 70), Map.of());
        }
        awaitDrained();
        await().atMost(Duration.ofSeconds(10)).until(() -> Ledger.inboxRows(CONSUMER, id) == 1);

        assertEquals(70, Ledger.balance(CONSUMER, 803), "applied once, on the redelivery");
        assertEquals(1, Ledger.grants(CONSUMER, 803));
        assertEquals(1, counted.messages(CONSUMER, "failed"), "the first delivery failed");
        assertEquals(1, counted.messages(CONSUMER, "processed"), "the redelivery applied it");
        assertEquals(0, counted.messages(CONSUMER, "duplicate"), "the rolled-back first attempt left no inbox row");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
    }

    @Test
    void poisonFromACoreSenderIsDeadLetteredWithItsReasonAndReadsBackAsTheOriginalOverCore() {
        String noId = "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":804,\"amount\":3}}";
        String cliDefault = "test message: 0"; // what `artemis producer` sends when not given a body
        byte[] notUtf8 = { (byte) 0xac, (byte) 0xed, 0x00, 0x05 }; // the start of a serialised Java object
        MetricsDelta counted = MetricsDelta.start();
        try (CoreTestClient jms = new CoreTestClient()) {
            jms.sendText(INBOX, noId, Map.of("tenant", "acme"));
            jms.sendText(INBOX, cliDefault, Map.of("tenant", "acme"));
            jms.sendBytes(INBOX, notUtf8, Map.of("tenant", "acme"));
            jms.sendText(INBOX, null, Map.of("tenant", "acme"));
            jms.sendText(INBOX, grant(UUID.randomUUID(), 804, 9), Map.of());
        }
        await("four refused").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 4);
        awaitDrained();

        assertEquals(9, Ledger.balance(CONSUMER, 804), "only the valid grant applied");
        assertEquals(4, counted.messages(CONSUMER, "rejected"));
        try (CoreTestClient jms = new CoreTestClient()) {
            List<CoreTestClient.Received> copies = jms.drain(ArtemisTestResource.DEAD_LETTER);
            assertEquals(4, copies.size(), "every refused message on the dead-letter address");
            CoreTestClient.Received missingId = copy(copies, noId);
            // The JMS message id is the client's own, new at every send: not a UUID, and it could not tell a
            // sender's retry from a new message anyway. The reason says what the service needs instead.
            String reason = missingId.property(DeadLetters.REASON);
            assertTrue(reason.startsWith("message-id: " + EnvelopeReader.TRANSPORT_ID_RULE + ", got 'ID:")
                    && reason.endsWith(": that is a JMS message id, which the JMS client makes anew at every send;"
                            + " put the sender's own messageId in the body"), reason);
            assertTrue(copy(copies, cliDefault).property(DeadLetters.REASON).startsWith("body: malformed JSON"),
                    copy(copies, cliDefault).property(DeadLetters.REASON));
            CoreTestClient.Received bytes = copies.stream().filter(c -> c.type() == Message.BYTES_TYPE).findFirst()
                    .orElseThrow(() -> new AssertionError("no BytesMessage among " + copies));
            org.junit.jupiter.api.Assertions.assertArrayEquals(notUtf8, bytes.bytes(), "the bytes kept as they were");
            assertEquals("body: not UTF-8: invalid byte sequence at offset 0", bytes.property(DeadLetters.REASON));
            CoreTestClient.Received nullText = copy(copies, null);
            assertTrue(nullText.property(DeadLetters.REASON).startsWith("body: "),
                    nullText.property(DeadLetters.REASON));
            for (CoreTestClient.Received copy : copies) {
                assertEquals("acme", copy.property("tenant"), "the sender's properties kept");
                assertEquals(CONSUMER, copy.property("x-consumer"));
            }
            assertEquals(List.of(Message.TEXT_TYPE, Message.TEXT_TYPE, Message.TEXT_TYPE),
                    copies.stream().filter(c -> c != bytes).map(CoreTestClient.Received::type).toList(),
                    "a TextMessage comes back as a TextMessage");
        }
        assertNothingUnacknowledged();
    }

    private static CoreTestClient.Received copy(List<CoreTestClient.Received> copies, String body) {
        return copies.stream().filter(c -> c.type() == Message.TEXT_TYPE && java.util.Objects.equals(body, c.text()))
                .findFirst().orElseThrow(() -> new AssertionError("no TextMessage " + body + " among " + copies));
    }
}
