package io.pointsinbox.points;

import java.time.Instant;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

/** The business effect of a message; runs only inside the transaction that claimed the inbox row. */
@ApplicationScoped
public class PointsLedger {

    private final Event<PointsApplied> applied;

    PointsLedger(Event<PointsApplied> applied) {
        this.applied = applied;
    }

    @Transactional(TxType.MANDATORY)
    public void grant(String consumer, UUID messageId, long userId, long amount) {
        UserPoints.credit(consumer, userId, amount);
        PointGrant grant = new PointGrant();
        grant.consumer = consumer;
        grant.userId = userId;
        grant.amount = amount;
        grant.messageId = messageId;
        grant.grantedAt = Instant.now();
        grant.persist();
        applied.fire(new PointsApplied(consumer, messageId, userId, amount));
    }
}
