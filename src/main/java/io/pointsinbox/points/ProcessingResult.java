package io.pointsinbox.points;

import java.util.UUID;

import io.pointsinbox.inbox.InboxOutcome;

/**
 * How one delivery ended for a consumer. For a duplicate, {@code outcome} is what the first delivery recorded, so a
 * sender retrying gets the same answer; it is null when the delivery was not applied (id conflict), and
 * {@code conflict} then says what the id was first used for and what it carries now.
 */
public record ProcessingResult(UUID messageId, Status status, InboxOutcome outcome, String conflict) {

    public ProcessingResult(UUID messageId, Status status, InboxOutcome outcome) {
        this(messageId, status, outcome, null);
    }

    /** The outcomes a delivery that reached the inbox can have. */
    public enum Status {
        /** First delivery; {@code outcome} says whether the effect was applied or rejected by a business rule. */
        FIRST_DELIVERY,
        /** The same message again: acknowledged without effect. */
        DUPLICATE_IGNORED,
        /**
         * The id was already used for a different message: not applied, counted, dead-lettered (AMQP) or 409 (HTTP).
         */
        ID_CONFLICT
    }
}
