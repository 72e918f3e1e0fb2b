package io.pointsinbox.points;

import java.util.UUID;

/**
 * A batch was rolled back because the effect of one of its messages failed: that message's delivery fails, as it
 * would have on its own; the others are tried again, each in a transaction of its own.
 */
public class BatchMemberFailed extends RuntimeException {

    private final transient UUID messageId;

    public BatchMemberFailed(UUID messageId, RuntimeException cause) {
        super("the effect of message " + messageId + " failed: " + cause.getMessage(), cause);
        this.messageId = messageId;
    }

    public UUID messageId() {
        return messageId;
    }
}
