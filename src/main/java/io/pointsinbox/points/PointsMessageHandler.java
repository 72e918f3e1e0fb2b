package io.pointsinbox.points;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import org.jboss.logging.Logger;

import io.pointsinbox.inbox.Claim;
import io.pointsinbox.inbox.InboxGuard;
import io.pointsinbox.inbox.InboxMessage;
import io.pointsinbox.inbox.InboxOutcome;
import io.pointsinbox.messaging.PointsEnvelope;
import io.pointsinbox.ops.ChaosHooks;
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
    private final ChaosHooks chaos;

    PointsMessageHandler(InboxGuard inbox, PointsLedger ledger, InboxMetrics metrics, ChaosHooks chaos) {
        this.inbox = inbox;
        this.ledger = ledger;
        this.metrics = metrics;
        this.chaos = chaos;
    }

    @Transactional(TxType.MANDATORY)
    public ProcessingResult handle(String consumer, PointsEnvelope envelope) {
        InboxMetrics.Recording recording = metrics.recordOnCompletion(consumer);
        Claim claim = inbox.claim(consumer, envelope.inboxEntry());
        if (!claim.won()) {
            return alreadyClaimed(consumer, envelope, claim.concurrent(), recording);
        }
        InboxMessage claimed = claim.row().orElseThrow();
        InboxOutcome outcome = switch (envelope.type()) {
            case POINTS_GRANTED -> ledger.grant(consumer, envelope.messageId(), envelope.userId(), envelope.amount());
            case POINTS_REDEEMED -> ledger.redeem(consumer, envelope.messageId(), envelope.userId(), envelope.amount());
        };
        if (outcome != InboxOutcome.PROCESSED) {
            claimed.outcome = outcome;
        }
        // Every statement runs before the method returns, so that the commit has nothing left to write: if the
        // session is torn down during shutdown before its flush-at-commit, the transaction cannot commit a claim
        // without its ledger entry.
        InboxMessage.flush();
        recording.committed(outcome == InboxOutcome.PROCESSED ? "processed" : "insufficient_balance");
        chaos.afterCommitOfCurrentTransaction();
        return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.FIRST_DELIVERY, outcome);
    }

    private ProcessingResult alreadyClaimed(String consumer, PointsEnvelope envelope, boolean concurrent,
            InboxMetrics.Recording recording) {
        Optional<InboxMessage> original = inbox.original(consumer, envelope.messageId());
        original.ifPresent(row -> metrics.duplicateAge(consumer, java.time.Duration.between(row.receivedAt,
                java.time.Instant.now())));
        if (original.isPresent() && !original.get().payloadHash.equals(envelope.payloadHash())) {
            recording.withoutEffect("id_conflict");
            metrics.duplicate(consumer, "id_conflict");
            LOG.warnf("Message id %s reused for consumer %s with a different payload (first %s, now %s %s); "
                    + "not applied", envelope.messageId(), consumer, original.get().payloadJson,
                    envelope.type().wireName(), envelope.payloadJson());
            return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.ID_CONFLICT, null);
        }
        recording.withoutEffect("duplicate");
        String duplicateClass = concurrent ? "in_flight" : "redelivery";
        metrics.duplicate(consumer, duplicateClass);
        LOG.debugf("Duplicate message %s for consumer %s (%s) acknowledged without effect", envelope.messageId(),
                consumer, duplicateClass);
        return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.DUPLICATE_IGNORED,
                original.map(row -> row.outcome).orElse(null));
    }
}
