package io.pointsinbox.contract;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;

import io.pointsinbox.config.PointsConfig;

/**
 * Parses and validates the message envelope shared by AMQP and HTTP. The id always comes from the sender: the
 * body's {@code messageId}, else the transport's id; a message with neither is invalid, never given a fresh id.
 * <p>
 * The JSON is read strictly, so that no two readers of the same bytes can disagree on what a message asks for:
 * UTF-8 only (no byte order mark, no other encoding guessed from the first bytes), one JSON value and nothing after
 * it, and no key twice in one object (parsers differ on which of two amounts wins; a ledger must not pick one).
 */
@ApplicationScoped
public class EnvelopeReader {

    /** Larger bodies are refused before parsing, on both transports; an envelope is a few hundred bytes. */
    public static final int MAX_BODY_BYTES = 16 * 1024;

    private static final MessageDigest SHA_256 = newSha256();
    /**
     * Strict about duplicate keys; the default limits (nesting depth 1,000 among them) apply as they did. Its buffers
     * come from a pool shared by all threads: Jackson's default keeps them per thread, and every delivery runs on a
     * new virtual thread, so each parse would allocate its 16 KiB of buffers afresh (a third of what a message
     * allocated in all).
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .recyclerPool(JsonRecyclerPools.newConcurrentDequePool())
            .build();

    private final PointsConfig config;

    EnvelopeReader(PointsConfig config) {
        this.config = config;
    }

    public PointsEnvelope read(byte[] body, String transportMessageId) {
        return readWithTransportId(body, () -> transportMessageId);
    }

    /**
     * Reads an envelope whose transport id, the text of a UUID, is looked up only when the body has no
     * {@code messageId}; the supplier may refuse an id it cannot read as text with an {@link InvalidEnvelopeException}.
     */
    public PointsEnvelope readWithTransportId(byte[] body, Supplier<String> transportMessageId) {
        if (body.length == 0) {
            throw new InvalidEnvelopeException("body", "empty: 0 bytes where a JSON object was expected");
        }
        if (body.length > MAX_BODY_BYTES) {
            throw new InvalidEnvelopeException("body", "at most " + MAX_BODY_BYTES + " bytes, got " + body.length);
        }
        // The whole document is read before any field is judged: a syntax error anywhere outranks a bad field.
        Fields fields = parse(utf8(body));
        UUID messageId = messageId(fields.messageId, transportMessageId);
        try {
            MessageType type = type(fields.type);
            if (fields.payloadJson == null) {
                throw new InvalidEnvelopeException("payload", "must be a JSON object");
            }
            long userId = integer(fields.userId, "userId", 1, Long.MAX_VALUE);
            long amount = integer(fields.amount, "amount", 1, config.maxAmount());
            if (fields.payloadJson.contains("\\u0000")) {
                // PostgreSQL's jsonb cannot hold it: refused here with its reason, not by a failing insert and retries.
                throw new InvalidEnvelopeException("payload",
                        "contains a NUL character (\\u0000), which is not stored");
            }
            return new PointsEnvelope(messageId, type, userId, amount, fields.payloadJson, hash(type, userId, amount));
        } catch (InvalidEnvelopeException e) {
            throw e.about(messageId);
        }
    }

    /** A scalar as the parser saw it: its token, its text, and for an integer its value if it fits a long. */
    private record Scalar(JsonToken token, String text, Long integer) {

        static Scalar of(JsonParser parser) throws IOException {
            JsonToken token = parser.currentToken();
            if (token == JsonToken.VALUE_NUMBER_INT) {
                boolean fits = parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
                return new Scalar(token, parser.getText(), fits ? parser.getLongValue() : null);
            }
            return new Scalar(token, token.isScalarValue() ? parser.getText() : null, null);
        }

        boolean isNull() {
            return token == JsonToken.VALUE_NULL;
        }
    }

    /** What the envelope's fields hold; {@code payloadJson} is null unless {@code payload} is an object. */
    private static final class Fields {
        Scalar messageId;
        Scalar type;
        String payloadJson;
        Scalar userId;
        Scalar amount;
    }

    private static String utf8(byte[] body) {
        ByteBuffer in = ByteBuffer.wrap(body);
        CharBuffer out = CharBuffer.allocate(body.length);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        if (decoder.decode(in, out, true).isError() || decoder.flush(out).isError()) {
            throw new InvalidEnvelopeException("body", "not UTF-8: invalid byte sequence at offset " + in.position());
        }
        String text = out.flip().toString();
        if (text.charAt(0) == '\uFEFF') {
            throw new InvalidEnvelopeException("body", "starts with a byte order mark; send UTF-8 JSON without one");
        }
        return text;
    }

    /**
     * One pass over the document: the envelope's fields are kept, everything else is read (so that it is checked)
     * and skipped, and the payload object is written out compactly as it is read.
     */
    private static Fields parse(String text) {
        try (JsonParser parser = JSON.createParser(text)) {
            JsonToken root = parser.nextToken();
            Fields fields = new Fields();
            if (root != JsonToken.START_OBJECT) {
                parser.skipChildren();
                endOfDocument(parser);
                throw new InvalidEnvelopeException("body", "must be a JSON object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (name) {
                    case "messageId" -> fields.messageId = Scalar.of(parser);
                    case "type" -> fields.type = Scalar.of(parser);
                    case "payload" -> {
                        if (value == JsonToken.START_OBJECT) {
                            payload(parser, fields);
                        } else {
                            fields.payloadJson = null;
                            fields.userId = null;
                            fields.amount = null;
                        }
                    }
                    default -> {
                    }
                }
                parser.skipChildren();
            }
            endOfDocument(parser);
            return fields;
        } catch (IOException e) {
            String duplicate = e instanceof JsonProcessingException processing ? duplicateKey(processing) : null;
            if (duplicate != null) {
                throw new InvalidEnvelopeException(duplicate, "appears twice in the same object; every key once");
            }
            if (text.indexOf('\0') >= 0) {
                // JSON never holds a raw NUL; text in UTF-16 or UTF-32 has one beside every ASCII character.
                throw new InvalidEnvelopeException("body", "malformed JSON: holds NUL bytes, as UTF-16 or UTF-32 "
                        + "text does; send UTF-8");
            }
            String reason = e instanceof JsonProcessingException processing ? processing.getOriginalMessage()
                    : e.getMessage();
            // The parser quotes what it read (up to 256 characters of a token): escaped, as any value a sender chose.
            throw new InvalidEnvelopeException("body",
                    "malformed JSON (" + Shown.text(String.valueOf(reason), 512) + ")");
        }
    }

    /** Copies the payload object, the parser on its start, keeping its userId and amount. */
    private static void payload(JsonParser parser, Fields fields) throws IOException {
        StringWriter json = new StringWriter(128);
        try (JsonGenerator out = JSON.createGenerator(json)) {
            out.writeStartObject();
            fields.userId = null;
            fields.amount = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                if (name.equals("userId")) {
                    fields.userId = Scalar.of(parser);
                } else if (name.equals("amount")) {
                    fields.amount = Scalar.of(parser);
                }
                out.writeFieldName(name);
                out.copyCurrentStructure(parser);
            }
            out.writeEndObject();
        }
        fields.payloadJson = json.toString();
    }

    private static void endOfDocument(JsonParser parser) throws IOException {
        JsonToken after = parser.nextToken();
        if (after != null) {
            throw new JsonParseException(parser, "Trailing token (" + after + ") after the first JSON value");
        }
    }

    /** The path of the key a strict parse found twice ({@code payload.amount}), or null for another error. */
    private static String duplicateKey(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        if (message == null || !message.startsWith("Duplicate field '")
                || !(e.getProcessor() instanceof JsonParser p)) {
            return null;
        }
        String key = message.substring("Duplicate field '".length(), message.lastIndexOf('\''));
        StringBuilder path = new StringBuilder();
        for (var context = p.getParsingContext().getParent(); context != null; context = context.getParent()) {
            if (context.getCurrentName() != null) {
                path.insert(0, context.getCurrentName() + '.');
            }
        }
        return Shown.text(path.append(key).toString(), 64);
    }

    private static UUID messageId(Scalar node, Supplier<String> transportMessageId) {
        if (node != null && !node.isNull()) {
            if (node.token() != JsonToken.VALUE_STRING) {
                throw new InvalidEnvelopeException("messageId", "must be a UUID string");
            }
            return uuid(node.text(), "messageId", "must be a UUID", "");
        }
        String transport = transportMessageId.get();
        if (transport == null || transport.isBlank()) {
            throw new InvalidEnvelopeException("messageId",
                    "missing: neither the body's messageId nor the AMQP message-id is set");
        }
        return uuid(transport, "message-id", TRANSPORT_ID_RULE, transport.startsWith("ID:") ? JMS_ID_HINT : "");
    }

    /**
     * Said when the transport id is a JMS message id ({@code ID:...}, set by the Artemis and Qpid JMS clients): the
     * client makes a new one at every {@code send}, so even in the form of a UUID it could not tell a sender's resend
     * from a new message.
     */
    static final String JMS_ID_HINT = ": that is a JMS message id, which the JMS client makes anew at every send;"
            + " put the sender's own messageId in the body";

    /** What the AMQP message-id must be when the body has no messageId; the reason names it when it is not. */
    public static final String TRANSPORT_ID_RULE = "the body has no messageId, so the AMQP message-id must be a UUID"
            + " (an AMQP uuid, or a string holding one)";

    private static UUID uuid(String text, String field, String rule, String hint) {
        try {
            UUID id = UUID.fromString(text);
            if (!id.toString().equalsIgnoreCase(text)) {
                throw new IllegalArgumentException(text);
            }
            if (id.equals(NIL) || id.equals(MAX)) {
                // What a sender's unset id field serialises to: every such message would share one inbox key, and all
                // but the first would be dropped as duplicates or refused as id conflicts.
                throw new InvalidEnvelopeException(field, "the " + (id.equals(NIL) ? "nil" : "max") + " UUID " + id
                        + " is a placeholder, not an id: the sender must set a unique id on every message");
            }
            return id;
        } catch (IllegalArgumentException e) {
            throw new InvalidEnvelopeException(field, rule + ", got '" + abbreviate(text) + "'" + hint);
        }
    }

    private static final UUID NIL = new UUID(0L, 0L);
    private static final UUID MAX = new UUID(-1L, -1L);

    private static MessageType type(Scalar node) {
        if (node == null || node.token() != JsonToken.VALUE_STRING) {
            throw new InvalidEnvelopeException("type", "missing or not a string");
        }
        return MessageType.fromWireName(node.text()).orElseThrow(() -> new InvalidEnvelopeException("type",
                "unknown message type '" + abbreviate(node.text()) + "', expected one of " + MessageType.wireNames()));
    }

    private static long integer(Scalar node, String field, long min, long max) {
        String path = "payload." + field;
        if (node == null || node.isNull()) {
            throw new InvalidEnvelopeException(path, "missing");
        }
        if (node.integer() == null && node.token() == JsonToken.VALUE_NUMBER_INT) {
            throw new InvalidEnvelopeException(path, "must be between " + min + " and " + max + ", got "
                    + abbreviate(node.text()));
        }
        if (node.integer() == null) {
            throw new InvalidEnvelopeException(path, "must be an integer, got " + describe(node));
        }
        long value = node.integer();
        if (value < min || value > max) {
            throw new InvalidEnvelopeException(path, "must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    /** How a refusal names a value of the wrong JSON type: {@code the string '5'}, {@code 5.5}, {@code an object}. */
    private static String describe(Scalar node) {
        return switch (node.token()) {
            case VALUE_STRING -> "the string '" + abbreviate(node.text()) + "'";
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            default -> abbreviate(node.text());
        };
    }

    /** Hash of what the message asks for, so that a reused id with a different effect can be told apart. */
    private static String hash(MessageType type, long userId, long amount) {
        byte[] digest = sha256().digest((type.wireName() + '\n' + userId + '\n' + amount)
                .getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest);
    }

    /** A fresh digest, cloned: looking the algorithm up among the security providers costs more than hashing. */
    private static MessageDigest sha256() {
        try {
            return (MessageDigest) SHA_256.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the SHA-256 digest cannot be cloned", e);
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JVM", e);
        }
    }

    /** A value quoted in a refusal, escaped and cut to 64 characters so that a reason stays one readable line. */
    public static String abbreviate(String text) {
        return Shown.text(text, 64);
    }
}
