package io.pointsinbox.messaging;

import java.util.UUID;

import io.pointsinbox.inbox.InboxEntry;

/** A validated "points" message: the sender's id, the type, and the effect it asks for. */
public record PointsEnvelope(UUID messageId, String type, long userId, long amount, String payloadJson,
        String payloadHash) {

    public static final String POINTS_GRANTED_V1 = "PointsGranted.v1";

    public InboxEntry inboxEntry() {
        return new InboxEntry(messageId, type, payloadJson, payloadHash);
    }
}
