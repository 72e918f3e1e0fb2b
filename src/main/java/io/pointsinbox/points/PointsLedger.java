package io.pointsinbox.points;

import java.time.Instant;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import io.pointsinbox.inbox.InboxOutcome;

/** The business effect of a message; runs only inside the transaction that claimed the inbox row. */
@ApplicationScoped
public class PointsLedger {

    private final Event<PointsApplied> applied;

    PointsLedger(Event<PointsApplied> applied) {
        this.applied = applied;
    }

    @Transactional(TxType.MANDATORY)
    public InboxOutcome grant(String consumer, UUID messageId, long userId, long amount) {
        UserPoints.credit(consumer, userId, amount);
        record(consumer, messageId, userId, amount, PointGrant.Kind.GRANT);
        return InboxOutcome.PROCESSED;
    }

    /** A redemption the balance cannot cover is a business outcome, recorded like any other, not a failure. */
    @Transactional(TxType.MANDATORY)
    public InboxOutcome redeem(String consumer, UUID messageId, long userId, long amount) {
        if (!UserPoints.debit(consumer, userId, amount)) {
            return InboxOutcome.REJECTED_INSUFFICIENT_BALANCE;
        }
        record(consumer, messageId, userId, -amount, PointGrant.Kind.REDEMPTION);
        return InboxOutcome.PROCESSED;
    }

    private void record(String consumer, UUID messageId, long userId, long signedAmount, PointGrant.Kind kind) {
        PointGrant entry = new PointGrant();
        entry.consumer = consumer;
        entry.userId = userId;
        entry.amount = signedAmount;
        entry.kind = kind;
        entry.messageId = messageId;
        entry.grantedAt = Instant.now();
        entry.persist();
        applied.fire(new PointsApplied(consumer, messageId, userId, signedAmount));
    }
}
