package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.pointsinbox.support.AmqpTestClient.gzip;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.amqp.messaging.Section;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.codec.WritableBuffer;
import org.apache.qpid.proton.message.Message;
import org.apache.qpid.proton.message.impl.MessageImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import io.pointsinbox.contract.ContentCodings;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.RawAmqpMessage;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Bad input of every AMQP body encoding, sent as another AMQP client would: each message is settled on its first
 * delivery and ends on the dead-letter address as the original, section by section, plus its reason.
 */
@QuarkusTest
class DeadLetterCopyTest extends InboxTestBase {

    /** One poison message per body encoding, and the reason its copy must start with. */
    private record Case(String label, Section body, String contentType, String contentEncoding, String reason) {
        Case(String label, Section body, String contentType, String reason) {
            this(label, body, contentType, "identity", reason);
        }
    }

    private static final String MUST_BE_JSON = "body: must be JSON in data sections or an AMQP string or binary "
            + "value, got ";

    private static final String GZIP_REFUSED = "body: content-encoding gzip is not supported; send the JSON "
            + "uncompressed";

    private static final String NESTED = "[".repeat(1_001) + "]".repeat(1_001);

    private static List<Case> cases() {
        byte[] notUtf8 = { (byte) 0xff, (byte) 0xfe, 0x00, 0x7b, 0x00, 0x7d };
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("messageId", UUID.randomUUID().toString());
        map.put("type", "PointsGranted.v1");
        return List.of(
                // A data section labelled application/json is decoded by the connector before the service sees it.
                new Case("json data, malformed", data("{\"messageId\":"), "application/json", "body: malformed JSON"),
                new Case("json data, not UTF-8", new Data(new Binary(notUtf8)), "application/json", "body: not UTF-8"),
                new Case("json data, nested 1,001 deep", data(NESTED), "application/json", "body: malformed JSON"),
                new Case("json data, duplicate key", data("{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,"
                        + "\"amount\":10,\"amount\":1000000}}"), "application/json", "payload.amount: appears twice"),
                new Case("cloud event data, malformed", data("{\"specversion\":"), "application/cloudevents+json",
                        "body: malformed JSON"),
                new Case("octet-stream data, not UTF-8", new Data(new Binary(notUtf8)), "application/octet-stream",
                        "body: not UTF-8"),
                new Case("empty data", new Data(new Binary(new byte[0])), null,
                        "body: empty: 0 bytes where a JSON object was expected"),
                new Case("string value", new AmqpValue("{not json"), null, "body: malformed JSON"),
                new Case("binary value", new AmqpValue(new Binary("{\"a\":".getBytes(StandardCharsets.UTF_8))), null,
                        "body: malformed JSON"),
                new Case("map value", new AmqpValue(map), null, MUST_BE_JSON + "an AMQP map value"),
                new Case("list value", new AmqpValue(List.of("a", 1L, true)), null,
                        MUST_BE_JSON + "an AMQP list value"),
                new Case("array value", new AmqpValue(new String[] { "a", "b" }), null,
                        MUST_BE_JSON + "an AMQP array value"),
                new Case("uint value", new AmqpValue(UnsignedInteger.valueOf(7)), null,
                        MUST_BE_JSON + "an AMQP uint value"),
                new Case("null value", new AmqpValue(null), null, MUST_BE_JSON + "an AMQP null value"),
                new Case("long value", new AmqpValue(42L), null, MUST_BE_JSON + "an AMQP long value"),
                new Case("uuid value", new AmqpValue(UUID.randomUUID()), null, MUST_BE_JSON + "an AMQP uuid value"),
                new Case("timestamp value", new AmqpValue(new Date(1_700_000_000_000L)), null,
                        MUST_BE_JSON + "an AMQP timestamp value"),
                new Case("symbol value", new AmqpValue(Symbol.valueOf("points")), null,
                        MUST_BE_JSON + "an AMQP symbol value"),
                new Case("amqp-sequence", new AmqpSequence(List.of(List.of(1L, 2L), "x")), null,
                        MUST_BE_JSON + "an amqp-sequence"),
                // Described sections inside a value are values, not more sections of the body.
                new Case("list value holding data sections", new AmqpValue(List.of(data("{}"), data("[]"))), null,
                        MUST_BE_JSON + "an AMQP list value"),
                new Case("no body", null, null, MUST_BE_JSON + "no body"),
                // A body that declares a content coding is not read, whatever its bytes: compressed, or plain JSON
                // that every reader honouring the label would fail to decompress.
                new Case("gzip data", new Data(new Binary(gzip(grant(UUID.randomUUID(), 1, 10)))), "application/json",
                        "gzip", GZIP_REFUSED),
                new Case("gzip-labelled data holding plain JSON", data(grant(UUID.randomUUID(), 1, 10)),
                        "application/json", "gzip", GZIP_REFUSED),
                new Case("deflate-labelled string value", new AmqpValue(grant(UUID.randomUUID(), 1, 10)), null,
                        " Deflate ", "body: content-encoding Deflate is not supported; send the JSON uncompressed"),
                // Over the body limit by one byte, and as far over it as a message the service reads may be
                // (POINTS_MAX_MESSAGE_SIZE, 20 KiB: a larger one is refused unread, OversizedDeliveryTest).
                new Case("json data, 1 byte over 16 KiB", data(oversized(16 * 1024 + 1)), "application/json",
                        "body: at most 16384 bytes, got 16385"),
                new Case("string value of 19 KiB", new AmqpValue(oversized(19 * 1024)), null,
                        "body: at most 16384 bytes, got 19456"),
                // Some clients declare the character set as the content-encoding: not a compression, no such hint.
                new Case("utf-8 labelled data, malformed", data("{\"messageId\":"), "application/json", "UTF-8",
                        "body: malformed JSON"));
    }

    /** A valid grant padded with an unknown field to exactly {@code size} bytes of UTF-8. */
    private static String oversized(int size) {
        String grant = grant(UUID.randomUUID(), 1, 10);
        String head = grant.substring(0, grant.length() - 1) + ",\"padding\":\"";
        return head + "x".repeat(size - head.length() - 2) + "\"}";
    }

    @Test
    void everyBodyEncodingIsSettledOnceAndDeadLetteredAsTheOriginalWithItsReason() {
        MetricsDelta counted = MetricsDelta.start();
        Map<String, Case> byId = new LinkedHashMap<>();
        Map<String, Message> originals = new HashMap<>();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            for (Case c : cases()) {
                String id = "poison-" + UUID.randomUUID();
                Message original = original(id, c);
                byId.put(id, c);
                originals.put(id, original);
                sender.send(original);
            }
        }
        List<Message> copies = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER, byId.size(),
                Duration.ofSeconds(30));
        awaitDrained();

        Map<String, Message> copyOf = copies.stream()
                .collect(Collectors.toMap(copy -> String.valueOf(copy.getMessageId()), Function.identity()));
        List<Executable> checks = new ArrayList<>();
        for (Map.Entry<String, Case> entry : byId.entrySet()) {
            Case c = entry.getValue();
            checks.add(() -> assertCopy(c, originals.get(entry.getKey()), copyOf.get(entry.getKey())));
        }
        assertAll(checks);
        assertEquals(byId.size(), copies.size(), "one copy per poison message, none twice");
        assertEquals(byId.size(), counted.messages(CONSUMER, "rejected"), "each counted as rejected");
        assertEquals(0, counted.messages(CONSUMER, "failed"), "none entered the redelivery loop");
        assertEquals(0, ArtemisTestResource.highestDeliveryCount(ArtemisTestResource.ADDRESS), "none redelivered");
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing claimed");
        assertNothingUnacknowledged();
    }

    /**
     * A body split over data sections, which the AMQP specification allows (the body is their bytes end to end) and
     * few clients send: the connector's AMQP library (Proton-J) keeps the first section only, and {@link BodySections}
     * reads the others. JSON split over three sections, with a footer after them, is applied once, and again a
     * duplicate. Described sections held as values (in message annotations, in a footer) are values, not sections: a
     * message with one data section and such values is read as usual.
     */
    @Test
    void aBodySplitOverDataSectionsIsReadWholeAndAppliedOnce() {
        MetricsDelta counted = MetricsDelta.start();
        String id = UUID.randomUUID().toString();
        String json = grant(UUID.fromString(id), 77, 7);
        Message split = new WithTrailingSections(data(json.substring(12, 40)), data(json.substring(40)),
                new Footer(Map.of(Symbol.valueOf("f"), "footer")));
        split.setDurable(true);
        split.setMessageId(id);
        split.setContentType("application/json");
        split.setBody(data(json.substring(0, 12)));
        split.setMessageAnnotations(new MessageAnnotations(Map.of(Symbol.valueOf("x-opt-described"), data("{"))));
        assertEquals(List.of("Header", "MessageAnnotations", "Properties", "Data", "Data", "Data", "Footer"),
                sectionTypes(split), "what goes on the wire");
        Message single = Message.Factory.create();
        single.setMessageAnnotations(new MessageAnnotations(Map.of(Symbol.valueOf("x-opt-described"), data("{"))));
        single.setBody(data(grant(UUID.randomUUID(), 76, 6)));
        single.setFooter(new Footer(Map.of(Symbol.valueOf("f"), data("}"))));
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.send(split);
            sender.send(split);
            sender.send(single);
        }
        awaitDrained();

        assertEquals(7, Ledger.balance(CONSUMER, 77), "applied once, read whole");
        assertEquals(6, Ledger.balance(CONSUMER, 76), "described values in annotations and footer are not sections");
        assertEquals(2, counted.messages(CONSUMER, "processed"));
        assertEquals(1, counted.messages(CONSUMER, "duplicate"));
        assertEquals(0, counted.messages(CONSUMER, "rejected"));
        assertNothingUnacknowledged();
    }

    /**
     * A poison body in several sections is judged whole and dead-lettered whole: a complete document in the first
     * data section followed by another section is not JSON (read alone, the first would have been applied), and two
     * amqp-sequence sections are refused naming both. Each copy holds the whole body in one section (the same body,
     * as AMQP reads it) and the footer that came after the sections.
     */
    @Test
    void aBodyInSeveralSectionsIsJudgedAndDeadLetteredWhole() {
        MetricsDelta counted = MetricsDelta.start();
        Footer footer = new Footer(Map.of(Symbol.valueOf("checksum"), "abc"));
        String completeId = UUID.randomUUID().toString();
        String complete = grant(UUID.fromString(completeId), 78, 8);
        Message trailing = new WithTrailingSections(data(" trailing"), footer);
        trailing.setMessageId(completeId);
        trailing.setBody(data(complete));
        String sequencesId = UUID.randomUUID().toString();
        Message sequences = new WithTrailingSections(new AmqpSequence(List.of("c")), footer);
        sequences.setMessageId(sequencesId);
        sequences.setBody(new AmqpSequence(List.of(1L, 2L)));
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.send(trailing);
            sender.send(sequences);
        }
        List<Message> copies = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER, 2, Duration.ofSeconds(30));
        awaitDrained();

        Map<String, Message> byId = new LinkedHashMap<>();
        copies.forEach(m -> byId.put(String.valueOf(m.getMessageId()), m));
        Message trailingCopy = byId.get(completeId);
        assertTrue(String.valueOf(reason(trailingCopy)).startsWith("body: malformed JSON"),
                "reason: " + reason(trailingCopy));
        assertArrayEquals(encoded(m -> m.setBody(data(complete + " trailing"))),
                encoded(m -> m.setBody(trailingCopy.getBody())), "the copy's body is both sections' bytes");
        assertEquals(footer.getValue(), trailingCopy.getFooter().getValue(), "the footer after the sections");
        Message sequencesCopy = byId.get(sequencesId);
        assertEquals(MUST_BE_JSON + "2 sections: amqp-sequence, amqp-sequence", reason(sequencesCopy));
        assertEquals(List.of(1L, 2L, "c"), ((AmqpSequence) sequencesCopy.getBody()).getValue());
        assertEquals(footer.getValue(), sequencesCopy.getFooter().getValue());
        assertEquals(0, Ledger.balance(CONSUMER, 78), "not applied by its first section");
        assertEquals(2, counted.messages(CONSUMER, "rejected"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing claimed");
        assertNothingUnacknowledged();
    }

    /**
     * Sections of different kinds in one body (a data section, then an amqp-value), which AMQP does not allow and no
     * single section can hold: refused, with no copy of the service's (it would lose a section); the broker moves the
     * original, as sent, to its dead-letter address after its delivery attempts.
     */
    @Test
    void aBodyOfSectionsOfDifferentKindsIsLeftToTheBrokerAsSent() {
        MetricsDelta counted = MetricsDelta.start();
        String id = UUID.randomUUID().toString();
        Message mixed = new WithTrailingSections(new AmqpValue("more"));
        mixed.setMessageId(id);
        mixed.setBody(data(grant(UUID.fromString(id), 79, 9)));
        List<Message> dead;
        try (LogCapture capture = LogCapture.of("");
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.send(mixed);
            dead = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER, 1, Duration.ofSeconds(60));
            awaitDrained();
            String said = "but its dead-letter copy cannot be written: its body is 2 sections: data, amqp-value, which"
                    + " AMQP does not allow in one message and no single section can hold. It is handed back to the"
                    + " broker";
            assertTrue(capture.linesWithContext().stream().anyMatch(line -> line.text().contains(said)
                    || line.thrown() != null && String.valueOf(line.thrown().getMessage()).contains(said)),
                    "the reason in the log: " + capture.lines());
        }

        assertEquals(id, String.valueOf(dead.get(0).getMessageId()));
        assertNull(reason(dead.get(0)), "moved by the broker, not a copy of the service's");
        assertEquals(0, Ledger.balance(CONSUMER, 79), "never applied");
        assertEquals(ArtemisTestResource.MAX_DELIVERY_ATTEMPTS, counted.messages(CONSUMER, "failed"),
                "refused once per delivery attempt");
        assertNothingUnacknowledged();
    }

    /**
     * An amqp-value holding an array of described values (as Qpid Proton's Python client writes
     * {@code Array(symbol("x"), INT, 1, 2, 3)}): the AMQP library under the connector reads it but cannot encode it
     * again, so no copy of it can be written. It is refused without ever reaching the connector's dead-letter sender,
     * where the encoding failure would break the dead-letter link for every message after it; the broker moves the
     * original, as sent, to its dead-letter address after its delivery attempts. The poison message and the grant
     * sent after it are handled as usual.
     */
    @Test
    void aMessageWhoseCopyCannotBeEncodedIsLeftToTheBrokerAndTheDeadLetterLinkKeepsWorking() {
        MetricsDelta counted = MetricsDelta.start();
        UUID unencodable = UUID.randomUUID();
        UUID poison = UUID.randomUUID();
        UUID valid = UUID.randomUUID();
        // amqp-value: array32 of 3 ints, each described by the symbol "x"
        byte[] describedIntArray = { 0x00, 0x53, 0x77, (byte) 0xf0, 0, 0, 0, 0x15, 0, 0, 0, 3, 0x00, (byte) 0xa3, 0x01,
                'x', 0x71, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3 };
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.send(new RawAmqpMessage(unencodable, describedIntArray));
            Message notJson = Message.Factory.create();
            notJson.setMessageId(poison.toString());
            notJson.setBody(new AmqpValue("{not json"));
            sender.send(notJson);
            sender.sendText(grant(valid, 91, 9));
        }
        List<Message> dead = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER, 2, Duration.ofSeconds(60));
        awaitDrained();

        Map<String, Message> byId = new LinkedHashMap<>();
        dead.forEach(m -> byId.put(String.valueOf(m.getMessageId()), m));
        Message copy = byId.get(poison.toString());
        assertNotNull(copy, "the poison message's copy, after the unencodable one: " + byId.keySet());
        assertTrue(String.valueOf(reason(copy)).startsWith("body: malformed JSON"), "reason: " + reason(copy));
        Message moved = byId.get(unencodable.toString());
        assertNotNull(moved, "the unencodable message, moved by the broker: " + byId.keySet());
        assertNull(reason(moved), "not a copy of the service's");
        Object value = ((AmqpValue) moved.getBody()).getValue();
        assertEquals(3, ((Object[]) value).length, "the array as sent");
        assertEquals(9, Ledger.balance(CONSUMER, 91), "the grant after them applied once");
        assertEquals(ArtemisTestResource.MAX_DELIVERY_ATTEMPTS, counted.messages(CONSUMER, "failed"),
                "the unencodable message failed once per delivery attempt");
        assertEquals(1, counted.messages(CONSUMER, "rejected"));
        assertEquals(1, counted.messages(CONSUMER, "processed"));
        assertNothingUnacknowledged();
    }

    /** The message's {@value DeadLetters#REASON} application property, or null when it has none. */
    private static Object reason(Message message) {
        return message.getApplicationProperties() == null ? null
                : message.getApplicationProperties().getValue().get(DeadLetters.REASON);
    }

    /** The sections of a message as encoded for the wire, by type, in order. */
    private static List<String> sectionTypes(Message message) {
        WritableBuffer.ByteBufferWrapper buffer = WritableBuffer.ByteBufferWrapper.allocate(64 * 1024);
        message.encode(buffer);
        DecoderImpl decoder = new DecoderImpl();
        AMQPDefinedTypes.registerAllTypes(decoder, new EncoderImpl(decoder));
        ByteBuffer bytes = buffer.byteBuffer().duplicate().flip();
        decoder.setByteBuffer(bytes);
        List<String> types = new ArrayList<>();
        while (bytes.hasRemaining()) {
            types.add(decoder.readObject().getClass().getSimpleName());
        }
        return types;
    }

    /** A message encoded with more sections after its body, as a client that splits a body would send it. */
    private static final class WithTrailingSections extends MessageImpl {

        private final List<Section> trailing;

        @SuppressWarnings("deprecation") // Message.Factory cannot make a subclass; the constructor is still public
        WithTrailingSections(Section... trailing) {
            this.trailing = List.of(trailing);
        }

        @Override
        public int encode(WritableBuffer buffer) {
            int start = buffer.position();
            super.encode(buffer);
            for (Section next : trailing) {
                // A message with nothing but a body, or a footer, encodes as that one section.
                byte[] section = next instanceof Footer footer ? encoded(m -> m.setFooter(footer))
                        : encoded(m -> m.setBody(next));
                buffer.put(section, 0, section.length);
            }
            return buffer.position() - start;
        }
    }

    private static void assertCopy(Case c, Message original, Message copy) {
        assertNotNull(copy, c.label() + ": a copy on the dead-letter address");
        Map<String, Object> added = copy.getApplicationProperties().getValue();
        String reason = String.valueOf(added.get(DeadLetters.REASON));
        assertTrue(reason.startsWith(c.reason()), c.label() + ": reason '" + reason + "' should start with '"
                + c.reason() + "'");
        if (!ContentCodings.transformsTheBody(c.contentEncoding())) {
            assertFalse(reason.contains("content-encoding"), c.label() + ": no content-encoding in '" + reason + "'");
        }
        assertEquals(ArtemisTestResource.ADDRESS, added.get(DeadLetters.ORIGINAL_ADDRESS), c.label() + ": address");
        assertEquals(CONSUMER, added.get(DeadLetters.CONSUMER), c.label() + ": consumer");
        assertArrayEquals(encoded(m -> m.setBody(original.getBody())), encoded(m -> m.setBody(copy.getBody())),
                c.label() + ": the same body section, type and bytes (original " + original.getBody() + ", copy "
                        + copy.getBody() + ")");
        Properties sent = original.getProperties();
        Properties kept = copy.getProperties();
        assertAll(c.label() + ": properties",
                () -> assertEquals(sent.getMessageId(), kept.getMessageId(), "message-id"),
                () -> assertEquals(sent.getCorrelationId(), kept.getCorrelationId(), "correlation-id"),
                () -> assertEquals(sent.getSubject(), kept.getSubject(), "subject"),
                () -> assertEquals(sent.getContentType(), kept.getContentType(), "content-type"),
                () -> assertEquals(sent.getContentEncoding(), kept.getContentEncoding(), "content-encoding"),
                () -> assertEquals(sent.getCreationTime(), kept.getCreationTime(), "creation-time"),
                () -> assertEquals(sent.getUserId(), kept.getUserId(), "user-id"),
                () -> assertEquals(sent.getReplyTo(), kept.getReplyTo(), "reply-to"),
                () -> assertEquals(sent.getGroupId(), kept.getGroupId(), "group-id"),
                () -> assertEquals(sent.getGroupSequence(), kept.getGroupSequence(), "group-sequence"),
                () -> assertEquals(sent.getReplyToGroupId(), kept.getReplyToGroupId(), "reply-to-group-id"),
                () -> assertEquals(sent.getAbsoluteExpiryTime(), kept.getAbsoluteExpiryTime(),
                        "absolute-expiry-time"));
        Map<String, Object> sentProperties = original.getApplicationProperties().getValue();
        Map<String, Object> keptProperties = new HashMap<>(added);
        keptProperties.keySet().removeAll(List.of(DeadLetters.REASON, DeadLetters.ORIGINAL_ADDRESS,
                DeadLetters.CONSUMER));
        assertEquals(sentProperties.keySet(), keptProperties.keySet(), c.label() + ": application properties");
        for (String key : sentProperties.keySet()) {
            assertArrayEquals(encodedValue(sentProperties.get(key)), encodedValue(keptProperties.get(key)),
                    c.label() + ": application property " + key + " with its AMQP type");
        }
        Map<Symbol, Object> sentAnnotations = original.getMessageAnnotations().getValue();
        Map<Symbol, Object> keptAnnotations = copy.getMessageAnnotations().getValue();
        for (Symbol key : sentAnnotations.keySet()) {
            assertTrue(keptAnnotations.containsKey(key), c.label() + ": message annotation " + key + " in "
                    + keptAnnotations);
            assertArrayEquals(encodedValue(sentAnnotations.get(key)), encodedValue(keptAnnotations.get(key)),
                    c.label() + ": message annotation " + key + " with its AMQP type");
        }
        assertEquals(original.getFooter().getValue(), copy.getFooter().getValue(), c.label() + ": footer");
        assertTrue(copy.isDurable(), c.label() + ": durable");
        assertEquals(original.getPriority(), copy.getPriority(), c.label() + ": priority");
    }

    /** A message as a sender with another client could build it: every property, typed values, annotations. */
    private static Message original(String id, Case c) {
        Message message = Message.Factory.create();
        message.setDurable(true);
        message.setPriority((short) 7);
        Properties properties = new Properties();
        properties.setMessageId(id);
        properties.setCorrelationId(new UnsignedLong(4242));
        properties.setSubject("points");
        properties.setContentType(c.contentType() == null ? null : Symbol.valueOf(c.contentType()));
        properties.setContentEncoding(Symbol.valueOf(c.contentEncoding()));
        properties.setCreationTime(new Date(System.currentTimeMillis() - 1_000));
        properties.setUserId(new Binary("sender-7".getBytes(StandardCharsets.UTF_8)));
        properties.setReplyTo("replies");
        properties.setGroupId("group-7");
        properties.setGroupSequence(UnsignedInteger.valueOf(3));
        properties.setReplyToGroupId("reply-group");
        properties.setAbsoluteExpiryTime(new Date(System.currentTimeMillis() + Duration.ofDays(2).toMillis()));
        message.setProperties(properties);
        Map<String, Object> applicationProperties = new LinkedHashMap<>();
        applicationProperties.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        applicationProperties.put("tenant", "acme");
        applicationProperties.put("attempt", 3);
        applicationProperties.put("weight", 2.5d);
        applicationProperties.put("urgent", true);
        applicationProperties.put("sequence", 9_000_000_000L);
        applicationProperties.put("origin", UUID.fromString("0c1b3c52-7f0e-4a55-9a43-2a1f2f8f3b10"));
        applicationProperties.put("sentAt", new Date(1_700_000_000_000L));
        applicationProperties.put("cloudEvents:specversion", "1.0");
        applicationProperties.put("cloudEvents:time", "not a time");
        // AMQP arrays of a primitive type, which the AMQP library reads as int[] and long[] (EncodableValues).
        applicationProperties.put("scores", new Integer[] { 3, 1, 2 });
        message.setApplicationProperties(new ApplicationProperties(applicationProperties));
        Map<Symbol, Object> annotations = new HashMap<>();
        annotations.put(Symbol.valueOf("x-opt-route"), "eu-west");
        annotations.put(Symbol.valueOf("x-opt-hops"), 2L);
        annotations.put(Symbol.valueOf("x-opt-path"), new Long[] { 7L, 1L << 40 });
        message.setMessageAnnotations(new MessageAnnotations(annotations));
        message.setFooter(new Footer(Map.of(Symbol.valueOf("x-opt-signature"), "abc")));
        if (c.body() != null) {
            message.setBody(c.body());
        }
        return message;
    }

    private static Data data(String text) {
        return new Data(new Binary(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** A message with only what {@code part} sets, encoded: compares sections by their AMQP type and bytes. */
    private static byte[] encoded(Consumer<Message> part) {
        Message message = Message.Factory.create();
        part.accept(message);
        byte[] buffer = new byte[2 * 1024 * 1024];
        return Arrays.copyOf(buffer, message.encode(buffer, 0, buffer.length));
    }

    private static byte[] encodedValue(Object value) {
        return encoded(m -> m.setBody(new AmqpValue(value)));
    }
}
