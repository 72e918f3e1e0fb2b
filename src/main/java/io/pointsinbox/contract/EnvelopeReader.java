package io.pointsinbox.contract;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;

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
    private static final ObjectReader STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build()
            .reader();

    private final PointsConfig config;

    EnvelopeReader(PointsConfig config) {
        this.config = config;
    }

    public PointsEnvelope read(byte[] body, String transportMessageId) {
        if (body.length == 0) {
            throw new InvalidEnvelopeException("body", "missing");
        }
        if (body.length > MAX_BODY_BYTES) {
            throw new InvalidEnvelopeException("body", "at most " + MAX_BODY_BYTES + " bytes, got " + body.length);
        }
        JsonNode root = parse(utf8(body));
        if (!root.isObject()) {
            throw new InvalidEnvelopeException("body", "must be a JSON object");
        }
        UUID messageId = messageId(root.get("messageId"), transportMessageId);
        MessageType type = type(root.get("type"));
        JsonNode payload = root.get("payload");
        if (payload == null || !payload.isObject()) {
            throw new InvalidEnvelopeException("payload", "must be a JSON object");
        }
        long userId = integer(payload, "userId", 1, Long.MAX_VALUE);
        long amount = integer(payload, "amount", 1, config.maxAmount());
        String payloadJson = payload.toString();
        if (payloadJson.contains("\\u0000")) {
            // PostgreSQL's jsonb cannot hold it: refused here with its reason, not by a failing insert and retries.
            throw new InvalidEnvelopeException("payload", "contains a NUL character (\\u0000), which is not stored");
        }
        return new PointsEnvelope(messageId, type, userId, amount, payloadJson, hash(type, userId, amount));
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

    private static JsonNode parse(String text) {
        try {
            return STRICT.readTree(text);
        } catch (JsonProcessingException e) {
            String duplicate = duplicateKey(e);
            if (duplicate != null) {
                throw new InvalidEnvelopeException(duplicate, "appears twice in the same object; every key once");
            }
            throw new InvalidEnvelopeException("body", "malformed JSON (" + e.getOriginalMessage() + ")");
        }
    }

    /** The path of the key a strict parse found twice ({@code payload.amount}), or null for another error. */
    private static String duplicateKey(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        if (message == null || !message.startsWith("Duplicate field '") || !(e.getProcessor() instanceof JsonParser p)) {
            return null;
        }
        String key = message.substring("Duplicate field '".length(), message.lastIndexOf('\''));
        StringBuilder path = new StringBuilder();
        for (var context = p.getParsingContext().getParent(); context != null; context = context.getParent()) {
            if (context.getCurrentName() != null) {
                path.insert(0, context.getCurrentName() + '.');
            }
        }
        return path.append(key).toString();
    }

    private static UUID messageId(JsonNode node, String transportMessageId) {
        if (node != null && !node.isNull()) {
            if (!node.isTextual()) {
                throw new InvalidEnvelopeException("messageId", "must be a UUID string");
            }
            return uuid(node.asText());
        }
        if (transportMessageId == null || transportMessageId.isBlank()) {
            throw new InvalidEnvelopeException("messageId",
                    "missing: neither the body's messageId nor the AMQP message-id is set");
        }
        return uuid(transportMessageId);
    }

    private static UUID uuid(String text) {
        try {
            UUID id = UUID.fromString(text);
            if (!id.toString().equalsIgnoreCase(text)) {
                throw new IllegalArgumentException(text);
            }
            return id;
        } catch (IllegalArgumentException e) {
            throw new InvalidEnvelopeException("messageId", "must be a UUID, got '" + abbreviate(text) + "'");
        }
    }

    private static MessageType type(JsonNode node) {
        if (node == null || !node.isTextual()) {
            throw new InvalidEnvelopeException("type", "missing or not a string");
        }
        return MessageType.fromWireName(node.asText()).orElseThrow(() -> new InvalidEnvelopeException("type",
                "unknown message type '" + abbreviate(node.asText()) + "', expected one of " + MessageType.wireNames()));
    }

    private static long integer(JsonNode payload, String field, long min, long max) {
        JsonNode node = payload.get(field);
        String path = "payload." + field;
        if (node == null || node.isNull()) {
            throw new InvalidEnvelopeException(path, "missing");
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw new InvalidEnvelopeException(path, "must be an integer");
        }
        long value = node.asLong();
        if (value < min || value > max) {
            throw new InvalidEnvelopeException(path, "must be between " + min + " and " + max + ", got " + value);
        }
        return value;
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

    private static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}
