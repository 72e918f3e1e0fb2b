package io.pointsinbox.inbox;

import java.util.UUID;

/** What the inbox keeps of a message: the sender's id, its type, the payload and a hash of it. */
public record InboxEntry(UUID messageId, String type, String payloadJson, String payloadHash) {
}
