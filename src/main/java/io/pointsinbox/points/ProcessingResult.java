package io.pointsinbox.points;

import java.util.UUID;

/** How one delivery ended for a consumer, as reported to the sender over HTTP and to the metrics. */
public record ProcessingResult(UUID messageId, Status status) {

    /** The outcomes a delivery that reached the inbox can have. */
    public enum Status {
        PROCESSED,
        DUPLICATE_IGNORED
    }
}
