package io.pointsinbox.contract;

import java.util.UUID;

/**
 * A message that can never be applied, whatever the retries: it names the offending field and why, and the message's
 * id when that was read before the fault was found (a valid id with an invalid amount, say), so that the line about
 * it can name the message.
 */
public class InvalidEnvelopeException extends RuntimeException {

    private final String field;
    private final String reason;
    private final UUID messageId;

    public InvalidEnvelopeException(String field, String reason) {
        this(field, reason, null);
    }

    private InvalidEnvelopeException(String field, String reason, UUID messageId) {
        super(field + ": " + reason, null, false, false);
        this.field = field;
        this.reason = reason;
        this.messageId = messageId;
    }

    public String field() {
        return field;
    }

    /** The id of the refused message, or null when the id itself was missing, invalid, or not reached. */
    public UUID messageId() {
        return messageId;
    }

    /** The same refusal, naming the message it is about. */
    InvalidEnvelopeException about(UUID id) {
        return new InvalidEnvelopeException(field, reason, id);
    }
}
