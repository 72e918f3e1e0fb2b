package io.pointsinbox.points;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import org.jboss.logging.Logger;

import io.pointsinbox.inbox.InboxGuard;
import io.pointsinbox.inbox.InboxMessage;
import io.pointsinbox.messaging.PointsEnvelope;
import io.pointsinbox.ops.InboxMetrics;

/**
 * Applies one points message at most once per consumer: claim the inbox row, then the ledger effect, all in the
 * caller's transaction so that both commit or neither does. Shared by the AMQP and HTTP adapters.
 */
@ApplicationScoped
public class PointsMessageHandler {

    private static final Logger LOG = Logger.getLogger(PointsMessageHandler.class);

    private final InboxGuard inbox;
    private final PointsLedger ledger;
    private final InboxMetrics metrics;

    PointsMessageHandler(InboxGuard inbox, PointsLedger ledger, InboxMetrics metrics) {
        this.inbox = inbox;
        this.ledger = ledger;
        this.metrics = metrics;
    }

    @Transactional(TxType.MANDATORY)
    public ProcessingResult handle(String consumer, PointsEnvelope envelope) {
        InboxMetrics.Recording recording = metrics.recordOnCompletion(consumer);
        var claimed = inbox.claim(consumer, envelope.inboxEntry());
        if (claimed.isEmpty()) {
            recording.duplicate();
            LOG.debugf("Duplicate message %s for consumer %s acknowledged without effect", envelope.messageId(),
                    consumer);
            return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.DUPLICATE_IGNORED);
        }
        ledger.grant(consumer, envelope.messageId(), envelope.userId(), envelope.amount());
        InboxMessage row = claimed.get();
        row.processedAt = java.time.Instant.now();
        return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.PROCESSED);
    }
}
