package io.pointsinbox.contract;

import java.util.UUID;

import io.pointsinbox.inbox.InboxEntry;

/** A validated points message: the sender's id, the type, and the effect it asks for. */
public record PointsEnvelope(UUID messageId, MessageType type, long userId, long amount, String payloadJson,
        String payloadHash) {

    public InboxEntry inboxEntry() {
        return new InboxEntry(messageId, type.wireName(), payloadJson, payloadHash);
    }
}
