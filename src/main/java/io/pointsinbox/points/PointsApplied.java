package io.pointsinbox.points;

import java.util.UUID;

/**
 * Fired synchronously inside the ledger transaction after a grant is written; an observer that throws rolls the
 * whole delivery back (tests use it to inject a failure at the worst moment).
 */
public record PointsApplied(String consumer, UUID messageId, long userId, long amount) {
}
