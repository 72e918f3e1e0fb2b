package io.pointsinbox.points;

import io.pointsinbox.contract.PointsEnvelope;

/** One message of a batch, and when it was queued (its processing time is counted from then). */
public record BatchMember(PointsEnvelope envelope, long queuedNanos) {
}
