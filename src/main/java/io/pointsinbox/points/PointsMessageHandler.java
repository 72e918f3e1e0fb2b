package io.pointsinbox.points;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pointsinbox.inbox.Claim;
import io.pointsinbox.inbox.InboxGuard;
import io.pointsinbox.inbox.InboxMessage;
import io.pointsinbox.inbox.InboxOutcome;
import io.pointsinbox.contract.MessageType;
import io.pointsinbox.contract.PointsEnvelope;
import io.pointsinbox.ops.ChaosHooks;
import io.pointsinbox.ops.InboxMetrics;

/**
 * Applies one points message exactly once in effect per consumer: claim the inbox row, then the ledger effect, all in
 * the caller's transaction so that both commit or neither does. Shared by the AMQP and HTTP adapters.
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
            return alreadyClaimed(consumer, envelope, claim.concurrent(), recording,
                    inbox.original(consumer, envelope.messageId()));
        }
        InboxMessage claimed = claim.row().orElseThrow();
        InboxOutcome outcome = apply(consumer, envelope);
        claimed.outcome = outcome;
        // Every statement runs before the method returns, so that the commit has nothing left to write: if the
        // session were torn down during shutdown before its flush-at-commit, the transaction could not commit a claim
        // without its effect.
        InboxMessage.flush();
        return applied(envelope, outcome, recording);
    }

    /**
     * {@link #handle} for the HTTP ingress, on one connection however many duplicates arrive at once. The claim is
     * {@code INSERT ... ON CONFLICT DO NOTHING}, so a duplicate leaves the transaction usable and the first delivery's
     * row is read in it. A request thread never holds one pooled connection while it asks for a second, which HTTP,
     * unlike the AMQP workers, could otherwise do without bound (every connection held by a duplicate waiting for
     * another: the pool's acquisition timeout, and a 500 for a message that was applied).
     */
    @Transactional(TxType.MANDATORY)
    public ProcessingResult handleOnOneConnection(String consumer, PointsEnvelope envelope) {
        InboxMetrics.Recording recording = metrics.recordOnCompletion(consumer);
        Claim claim = inbox.claimAll(consumer, List.of(envelope.inboxEntry())).get(0);
        if (!claim.won()) {
            return alreadyClaimed(consumer, envelope, claim.concurrent(), recording,
                    Optional.ofNullable(inbox.originals(consumer, List.of(envelope.messageId()))
                            .get(envelope.messageId())));
        }
        InboxOutcome outcome = apply(consumer, envelope);
        InboxMessage.flush();
        if (outcome != InboxOutcome.PROCESSED) {
            inbox.recordOutcome(consumer, envelope.messageId(), outcome);
        }
        return applied(envelope, outcome, recording);
    }

    private InboxOutcome apply(String consumer, PointsEnvelope envelope) {
        return switch (envelope.type()) {
            case POINTS_GRANTED -> ledger.grant(consumer, envelope.messageId(), envelope.userId(), envelope.amount());
            case POINTS_REDEEMED -> ledger.redeem(consumer, envelope.messageId(), envelope.userId(), envelope.amount());
        };
    }

    private ProcessingResult applied(PointsEnvelope envelope, InboxOutcome outcome,
            InboxMetrics.Recording recording) {
        recording.committed(outcome == InboxOutcome.PROCESSED ? "processed" : "insufficient_balance");
        chaos.scheduleDelayBetweenCommitAndAck();
        return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.FIRST_DELIVERY, outcome);
    }

    /**
     * {@link #handle} in a transaction of its own, for what batched mode applies one by one. A duplicate marks that
     * transaction rollback-only; this ends it without an exception, as the AMQP adapter's own transaction does.
     */
    @Transactional(TxType.REQUIRES_NEW)
    public ProcessingResult handleAlone(String consumer, PointsEnvelope envelope) {
        return handle(consumer, envelope);
    }

    /**
     * Applies a batch of grants in the caller's transaction (batched mode): the inbox rows in one statement, then the
     * balances and ledger entries of the ids it won. An id already claimed, or repeated within the batch, is a
     * duplicate, told from an id conflict as {@link #handle} does. Redemptions are never batched: each needs the
     * balance left by the previous one.
     *
     * @return one result per member, in the order given
     * @throws BatchMemberFailed when the effect of one member failed; the caller rolls the batch back
     */
    @Transactional(TxType.MANDATORY)
    public List<ProcessingResult> handleGrants(String consumer, List<BatchMember> members) {
        List<InboxMetrics.Recording> recordings = new ArrayList<>(members.size());
        // First occurrence of each id, sorted by id: concurrent batches then wait on each other's keys in one order.
        SortedMap<UUID, PointsEnvelope> firsts = new TreeMap<>();
        for (BatchMember member : members) {
            if (member.envelope().type() != MessageType.POINTS_GRANTED) {
                throw new IllegalArgumentException("only grants are batched, not " + member.envelope().type());
            }
            recordings.add(metrics.recordBatchMember(consumer, member.queuedNanos()));
            firsts.putIfAbsent(member.envelope().messageId(), member.envelope());
        }
        List<PointsEnvelope> claimed = List.copyOf(firsts.values());
        List<Claim> claims = inbox.claimAll(consumer, claimed.stream().map(PointsEnvelope::inboxEntry).toList());
        Map<UUID, Claim> claimOf = new HashMap<>();
        List<PointsLedger.Grant> grants = new ArrayList<>();
        List<UUID> lost = new ArrayList<>();
        for (int i = 0; i < claimed.size(); i++) {
            PointsEnvelope envelope = claimed.get(i);
            claimOf.put(envelope.messageId(), claims.get(i));
            if (claims.get(i).won()) {
                grants.add(new PointsLedger.Grant(envelope.messageId(), envelope.userId(), envelope.amount()));
            } else {
                lost.add(envelope.messageId());
            }
        }
        Map<UUID, InboxMessage> originals = inbox.originals(consumer, lost);
        ledger.grantAll(consumer, grants);
        chaos.scheduleDelayBetweenCommitAndAck();

        List<ProcessingResult> results = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            PointsEnvelope envelope = members.get(i).envelope();
            Claim claim = claimOf.get(envelope.messageId());
            boolean repeat = firsts.get(envelope.messageId()) != envelope;
            if (claim.won() && !repeat) {
                recordings.get(i).committed("processed");
                results.add(new ProcessingResult(envelope.messageId(), ProcessingResult.Status.FIRST_DELIVERY,
                        InboxOutcome.PROCESSED));
            } else {
                // A repeat within the batch was in flight with its first occurrence, which it is compared with.
                Optional<InboxMessage> original = claim.won() ? claim.row()
                        : Optional.ofNullable(originals.get(envelope.messageId()));
                results.add(alreadyClaimed(consumer, envelope, claim.won() || claim.concurrent(),
                        recordings.get(i), original));
            }
        }
        return results;
    }

    private ProcessingResult alreadyClaimed(String consumer, PointsEnvelope envelope, boolean concurrent,
            InboxMetrics.Recording recording, Optional<InboxMessage> original) {
        java.time.Duration age = original.map(row -> java.time.Duration.between(row.receivedAt,
                java.time.Instant.now())).orElse(null);
        if (original.isPresent() && !original.get().payloadHash.equals(envelope.payloadHash())) {
            recording.duplicate("id_conflict", "id_conflict", age);
            return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.ID_CONFLICT, null,
                    "first payload " + compared(original.get().messageType, original.get().payloadJson)
                            + ", this one " + compared(envelope.type().wireName(), envelope.userId(),
                                    envelope.amount()));
        }
        String duplicateClass = concurrent ? "in_flight" : "redelivery";
        recording.duplicate("duplicate", duplicateClass, age);
        LOG.debugf("Duplicate message %s for consumer %s (%s) acknowledged without effect", envelope.messageId(),
                consumer, duplicateClass);
        return new ProcessingResult(envelope.messageId(), ProcessingResult.Status.DUPLICATE_IGNORED,
                original.map(row -> row.outcome).orElse(null));
    }

    /**
     * What the payload hash compares ({@code type}, {@code userId}, {@code amount}), written the same way for the
     * stored first message (its payload as PostgreSQL returns it) and for the new one: a conflict reads as a diff.
     */
    private static String compared(String type, String storedPayloadJson) {
        try {
            JsonNode payload = StoredJson.MAPPER.readTree(storedPayloadJson);
            if (payload.path("userId").canConvertToLong() && payload.path("amount").canConvertToLong()) {
                return compared(type, payload.get("userId").asLong(), payload.get("amount").asLong());
            }
        } catch (JsonProcessingException e) {
            // not expected from a jsonb column; shown as stored below
        }
        return type + " " + storedPayloadJson;
    }

    private static String compared(String type, long userId, long amount) {
        return type + " {\"userId\":" + userId + ",\"amount\":" + amount + "}";
    }

    /** Made on the first id conflict (a sender's bug, rare), not at start-up. */
    private static final class StoredJson {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }
}
