package io.pointsinbox.messaging;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pointsinbox.config.PointsConfig;

/**
 * Parses and validates the message envelope shared by AMQP and HTTP. The id always comes from the sender: the
 * body's {@code messageId}, else the transport's id; a message with neither is invalid, never given a fresh id.
 */
@ApplicationScoped
public class EnvelopeReader {

    private static final MessageDigest SHA_256 = newSha256();

    private final ObjectMapper mapper;
    private final PointsConfig config;

    EnvelopeReader(ObjectMapper mapper, PointsConfig config) {
        this.mapper = mapper;
        this.config = config;
    }

    public PointsEnvelope read(byte[] body, String transportMessageId) {
        JsonNode root;
        try {
            root = mapper.readTree(body);
        } catch (JsonProcessingException e) {
            throw new InvalidEnvelopeException("body", "malformed JSON (" + e.getOriginalMessage() + ")");
        } catch (java.io.IOException e) {
            throw new InvalidEnvelopeException("body", "unreadable (" + e.getMessage() + ")");
        }
        if (root == null || !root.isObject()) {
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
        return new PointsEnvelope(messageId, type, userId, amount, payload.toString(), hash(type, userId, amount));
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
