package io.pointsinbox.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import io.pointsinbox.config.PointsConfig;

/** The envelope's rules, read without Quarkus: what is accepted, what is kept, and which field a refusal names. */
class EnvelopeReaderTest {

    private static final String ID = "9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad";
    private final EnvelopeReader reader = new EnvelopeReader(new Settings());

    @Test
    void aValidEnvelopeKeepsItsPayloadCompactWithUnknownFields() {
        PointsEnvelope envelope = read("""
                {"messageId": "%s", "type": "PointsGranted.v1", "unknown": {"deep": [[1]]},
                 "payload": {"userId": 123, "amount": 100, "note": "a\\nb", "tags": [1, {"x": null}]}}
                """.formatted(ID));
        assertEquals(UUID.fromString(ID), envelope.messageId());
        assertEquals(MessageType.POINTS_GRANTED, envelope.type());
        assertEquals(123, envelope.userId());
        assertEquals(100, envelope.amount());
        assertEquals("{\"userId\":123,\"amount\":100,\"note\":\"a\\nb\",\"tags\":[1,{\"x\":null}]}",
                envelope.payloadJson(), "the payload as sent, compact, unknown fields included");
    }

    @Test
    void theTransportIdIsUsedOnlyWhenTheBodyHasNone() {
        String other = UUID.randomUUID().toString();
        assertEquals(UUID.fromString(other), reader.read(bytes(
                "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}"), other).messageId());
        assertEquals(UUID.fromString(ID), reader.read(bytes(envelope("{\"userId\":1,\"amount\":1}")), other)
                .messageId());
    }

    @Test
    void aPlaceholderTransportIdIsRefusedLikeOneInTheBody() {
        byte[] noId = bytes("{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}");
        InvalidEnvelopeException refused = assertThrows(InvalidEnvelopeException.class,
                () -> reader.read(noId, "00000000-0000-0000-0000-000000000000"));
        assertEquals("message-id", refused.field());
        assertTrue(refused.getMessage().contains("the nil UUID"), refused.getMessage());
        assertEquals(new UUID(0L, 1L), reader.read(noId, "00000000-0000-0000-0000-000000000001").messageId(),
                "only the placeholders themselves are refused");
    }

    @Test
    void aJmsMessageIdIsRefusedSayingWhereTheIdBelongs() {
        byte[] noId = bytes("{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}");
        for (String jmsId : List.of("ID:f6a4a644-efc4-11f1-8688-02fc00000001", // Artemis JMS client
                "ID:e8726d1d-1367-40d6-b358-d085cb0c4594:2:1:1-1")) { // Qpid JMS
            InvalidEnvelopeException refused = assertThrows(InvalidEnvelopeException.class,
                    () -> reader.read(noId, jmsId));
            assertEquals("message-id: " + EnvelopeReader.TRANSPORT_ID_RULE + ", got '" + jmsId + "'"
                    + EnvelopeReader.JMS_ID_HINT, refused.getMessage());
        }
        InvalidEnvelopeException other = assertThrows(InvalidEnvelopeException.class, () -> reader.read(noId, "42"));
        assertEquals("message-id: " + EnvelopeReader.TRANSPORT_ID_RULE + ", got '42'", other.getMessage(),
                "the hint only for a JMS message id");
    }

    @Test
    void theHashDependsOnWhatTheMessageAsksForOnly() {
        String withNote = read(envelope("{\"userId\":1,\"amount\":5,\"note\":\"x\"}")).payloadHash();
        assertEquals(withNote, read(envelope("{\"amount\":5,\"userId\":1}")).payloadHash());
        assertTrue(!withNote.equals(read(envelope("{\"userId\":1,\"amount\":6}")).payloadHash()),
                "another amount, another hash");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            malformed                | {"messageId":                                                        | body | malformed JSON
            trailing value           | {"payload":{}} {}                                                    | body | malformed JSON
            not an object            | [1,2]                                                                | body | must be a JSON object
            blank                    | '   '                                                                | body | must be a JSON object
            key twice at the root    | {"type":"PointsGranted.v1","type":"PointsRedeemed.v1"}               | type | appears twice
            key twice in the payload | #{"userId":1,"amount":10,"amount":1000000}                           | payload.amount | appears twice
            key twice deeper         | #{"userId":1,"amount":10,"n":{"a":1,"a":2}}                          | payload.n.a | appears twice
            no id anywhere           | {"type":"PointsGranted.v1","payload":{"userId":1,"amount":1}}         | messageId | missing
            id not a string          | {"messageId":5,"type":"PointsGranted.v1","payload":{"userId":1,"amount":1}} | messageId | must be a UUID string
            id not a UUID            | {"messageId":"x","type":"PointsGranted.v1","payload":{"userId":1,"amount":1}} | messageId | must be a UUID
            id the nil UUID          | {"messageId":"00000000-0000-0000-0000-000000000000","type":"PointsGranted.v1","payload":{"userId":1,"amount":1}} | messageId | the nil UUID 00000000-0000-0000-0000-000000000000 is a placeholder, not an id
            id the max UUID          | {"messageId":"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF","type":"PointsGranted.v1","payload":{"userId":1,"amount":1}} | messageId | the max UUID ffffffff-ffff-ffff-ffff-ffffffffffff is a placeholder, not an id
            unknown type             | {"messageId":"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad","type":"Other","payload":{}} | type | unknown message type 'Other'
            payload not an object    | {"messageId":"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad","type":"PointsGranted.v1","payload":[1]} | payload | must be a JSON object
            user missing             | #{"amount":1}                                                         | payload.userId | missing
            user a string            | #{"userId":"1","amount":1}                                            | payload.userId | must be an integer, got the string '1'
            user a fraction          | #{"userId":1.0,"amount":1}                                            | payload.userId | must be an integer, got 1.0
            user a boolean           | #{"userId":true,"amount":1}                                           | payload.userId | must be an integer, got true
            user an object           | #{"userId":{"id":1},"amount":1}                                       | payload.userId | must be an integer, got an object
            amount an array          | #{"userId":1,"amount":[5]}                                            | payload.amount | must be an integer, got an array
            user beyond a long       | #{"userId":99999999999999999999,"amount":1}                           | payload.userId | must be between 1 and 9223372036854775807, got 99999999999999999999
            amount beyond a long     | #{"userId":1,"amount":-99999999999999999999}                          | payload.amount | must be between 1 and 1000000, got -99999999999999999999
            amount zero              | #{"userId":1,"amount":0}                                              | payload.amount | must be between 1 and 1000000, got 0
            amount above the maximum | #{"userId":1,"amount":1000001}                                        | payload.amount | must be between 1 and 1000000
            NUL in the payload       | #{"userId":1,"amount":1,"s":"a\\u0000b"}                             | payload | NUL character
            """)
    void aRefusalNamesTheFieldAndTheReason(String name, String body, String field, String reason) {
        String json = body.startsWith("#") ? envelope(body.substring(1)) : body;
        InvalidEnvelopeException refused = assertThrows(InvalidEnvelopeException.class, () -> read(json), name);
        assertEquals(field, refused.field(), name + ": the field named");
        assertTrue(refused.getMessage().contains(reason), name + ": expected '" + reason + "' in " + refused.getMessage());
    }

    @Test
    void aRefusalNamesTheMessageOnlyWhenItsIdWasRead() {
        UUID id = UUID.fromString(ID);
        for (String bad : List.of(envelope("{\"userId\":1,\"amount\":0}"), envelope("{\"amount\":1}"),
                envelope("{\"userId\":1,\"amount\":1,\"s\":\"\\u0000\"}"),
                "{\"messageId\":\"" + ID + "\",\"type\":\"Other\",\"payload\":{}}",
                "{\"messageId\":\"" + ID + "\",\"type\":\"PointsGranted.v1\",\"payload\":[1]}")) {
            assertEquals(id, assertThrows(InvalidEnvelopeException.class, () -> read(bad), bad).messageId(), bad);
        }
        String other = UUID.randomUUID().toString();
        assertEquals(UUID.fromString(other), assertThrows(InvalidEnvelopeException.class, () -> reader.read(
                bytes("{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":0}}"), other))
                .messageId(), "the transport id when the body has none");
        for (String bad : List.of("{\"messageId\":", "{\"messageId\":\"x\",\"type\":\"PointsGranted.v1\"}",
                "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":0}}",
                envelope("{\"userId\":1,\"amount\":10,\"amount\":1000000}"))) {
            assertNull(assertThrows(InvalidEnvelopeException.class, () -> read(bad), bad).messageId(),
                    "no id read: " + bad);
        }
    }

    @Test
    void anEmptyBodyIsRefusedAsEmpty() {
        InvalidEnvelopeException refused = assertThrows(InvalidEnvelopeException.class,
                () -> reader.read(new byte[0], ID), "even with a transport id");
        assertEquals("body: empty: 0 bytes where a JSON object was expected", refused.getMessage());
    }

    @Test
    void aSyntaxErrorOutranksABadField() {
        InvalidEnvelopeException refused = assertThrows(InvalidEnvelopeException.class,
                () -> read("{\"type\":\"Other\",\"payload\":{\"userId\":\"x\"} ,,}"));
        assertEquals("body", refused.field());
        assertTrue(refused.getMessage().contains("malformed JSON"), refused.getMessage());
    }

    @Test
    void textInUtf16IsRefusedSayingSo() {
        String grant = envelope("{\"userId\":1,\"amount\":1}");
        for (var charset : List.of(StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE)) {
            InvalidEnvelopeException refused = assertThrows(InvalidEnvelopeException.class,
                    () -> reader.read(grant.getBytes(charset), null), charset.name());
            assertEquals("body", refused.field());
            assertTrue(refused.getMessage().contains("malformed JSON: holds NUL bytes, as UTF-16 or UTF-32 text does"),
                    charset + ": " + refused.getMessage());
        }
        assertTrue(assertThrows(InvalidEnvelopeException.class, () -> read("{\"messageId\":"))
                .getMessage().contains("malformed JSON (Unexpected end-of-input"), "UTF-8 keeps the parser's reason");
    }

    @Test
    void nestingDeeperThanAThousandLevelsIsRefused() {
        assertEquals("body", assertThrows(InvalidEnvelopeException.class,
                () -> read("[".repeat(1001) + "]".repeat(1001))).field());
    }

    @Test
    void bytesThatAreNotUtf8OrStartWithAByteOrderMarkAreRefused() {
        assertTrue(assertThrows(InvalidEnvelopeException.class, () -> reader.read(new byte[] { '{', (byte) 0xC3, '}' },
                null)).getMessage().contains("not UTF-8"));
        assertTrue(assertThrows(InvalidEnvelopeException.class, () -> read("\uFEFF{}")).getMessage()
                .contains("byte order mark"));
    }

    /**
     * One reader serves every delivery thread, and its parser buffers come from one pool shared by all of them: many
     * threads reading at once, refusals among them (a refusal returns its buffers too), each get exactly what a
     * reader on its own makes of the same body, every field and the payload hash included.
     */
    @Test
    void manyThreadsParsingAtOnceEachReadTheirOwnMessage() throws Exception {
        int threads = 16;
        int perThread = 2_000;
        List<String> bodies = new ArrayList<>();
        List<PointsEnvelope> alone = new ArrayList<>();
        for (int i = 0; i < threads * perThread; i++) {
            UUID id = new UUID(7, i);
            if (i % 10 == 0) {
                bodies.add("{\"messageId\":\"" + id + "\",\"payload\":{\"userId\":" + i + ",");
                alone.add(null);
            } else {
                bodies.add("{\"messageId\":\"" + id + "\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":"
                        + (i + 1) + ",\"amount\":" + (i % 1000 + 1) + "}}");
                PointsEnvelope envelope = read(bodies.get(i));
                assertEquals(id, envelope.messageId(), "message " + i);
                assertEquals(i + 1, envelope.userId(), "user of message " + i);
                assertEquals(i % 1000 + 1, envelope.amount(), "amount of message " + i);
                assertEquals("{\"userId\":" + (i + 1) + ",\"amount\":" + (i % 1000 + 1) + "}", envelope.payloadJson(),
                        "payload of message " + i);
                alone.add(envelope);
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t * perThread;
                results.add(pool.submit(() -> {
                    int checked = 0;
                    for (int i = first; i < first + perThread; i++) {
                        String body = bodies.get(i);
                        if (alone.get(i) == null) {
                            assertThrows(InvalidEnvelopeException.class, () -> read(body));
                            continue;
                        }
                        assertEquals(alone.get(i), read(body), "message " + i);
                        checked++;
                    }
                    return checked;
                }));
            }
            int checked = 0;
            for (Future<Integer> result : results) {
                checked += result.get(60, TimeUnit.SECONDS);
            }
            assertEquals(threads * perThread * 9 / 10, checked, "every valid message read");
        } finally {
            pool.shutdownNow();
        }
    }

    private PointsEnvelope read(String json) {
        return reader.read(bytes(json), null);
    }

    private static String envelope(String payload) {
        return "{\"messageId\":\"" + ID + "\",\"type\":\"PointsGranted.v1\",\"payload\":" + payload + "}";
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    /** The defaults of {@link PointsConfig}; the reader reads the largest amount only. */
    private static final class Settings implements PointsConfig {
        @Override
        public String consumer() {
            return "points-ledger";
        }

        @Override
        public String address() {
            return "points-granted";
        }

        @Override
        public long maxAmount() {
            return 1_000_000;
        }

        @Override
        public int maxMessageSize() {
            return 20_480;
        }

        @Override
        public int linkCredit() {
            return 256;
        }

        @Override
        public int concurrency() {
            return 8;
        }

        @Override
        public Duration databaseRetryInterval() {
            return Duration.ofSeconds(1);
        }

        @Override
        public String deadLetterAddress() {
            return "DLQ";
        }

        @Override
        public Duration deadLetterTimeout() {
            return Duration.ofSeconds(10);
        }

        @Override
        public Duration brokerIdleTimeout() {
            return Duration.ofSeconds(30);
        }

        @Override
        public Duration stallTimeout() {
            return Duration.ofSeconds(60);
        }

        @Override
        public java.util.Optional<String> brokerTrustCertificates() {
            return java.util.Optional.empty();
        }

        @Override
        public Duration databaseSocketTimeout() {
            return Duration.ofSeconds(90);
        }
    }
}
