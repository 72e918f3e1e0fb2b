package io.pointsinbox.points;

import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import io.pointsinbox.inbox.InboxOutcome;
import io.quarkus.hibernate.orm.panache.Panache;

/** The business effect of a message; runs only inside the transaction that claimed the inbox row. */
@ApplicationScoped
public class PointsLedger {

    private static final String CREDIT_ALL = """
            insert into user_points (consumer, user_id, balance)
            select ?, t.user_id, t.amount from unnest(?::bigint[], ?::bigint[]) as t(user_id, amount)
            order by t.user_id
            on conflict (consumer, user_id) do update set balance = user_points.balance + excluded.balance
            """;

    private static final String RECORD_ALL = """
            insert into point_grant (id, consumer, granted_at, kind, user_id, amount, message_id)
            select nextval('point_grant_seq'), ?, ?, 'GRANT', t.user_id, t.amount, t.message_id
            from unnest(?::bigint[], ?::bigint[], ?::uuid[]) as t(user_id, amount, message_id)
            """;

    /** One ledger entry, as {@link #RECORD_ALL} writes a batch of them. */
    private static final String RECORD = """
            insert into point_grant (id, consumer, granted_at, kind, user_id, amount, message_id)
            values (nextval('point_grant_seq'), ?, ?, ?, ?, ?, ?)
            """;

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

    /**
     * Applies several grants in the caller's transaction with two statements: the balances, summed per user and
     * locked in user order (two batches touching the same users queue up instead of deadlocking), then the ledger
     * entries. {@link PointsApplied} is then fired for each grant, as {@link #grant} does.
     *
     * @throws BatchMemberFailed when an observer of one grant fails: the batch rolls back because of that grant
     */
    @Transactional(TxType.MANDATORY)
    public void grantAll(String consumer, List<Grant> grants) {
        if (grants.isEmpty()) {
            return;
        }
        SortedMap<Long, Long> perUser = new TreeMap<>();
        grants.forEach(grant -> perUser.merge(grant.userId(), grant.amount(), Long::sum));
        Instant now = Instant.now();
        Panache.getSession().doWork(connection -> {
            try (PreparedStatement balances = connection.prepareStatement(CREDIT_ALL);
                    PreparedStatement entries = connection.prepareStatement(RECORD_ALL)) {
                balances.setString(1, consumer);
                balances.setArray(2, connection.createArrayOf("bigint", perUser.keySet().toArray()));
                balances.setArray(3, connection.createArrayOf("bigint", perUser.values().toArray()));
                balances.executeUpdate();
                entries.setString(1, consumer);
                entries.setObject(2, now.atOffset(ZoneOffset.UTC));
                entries.setArray(3, connection.createArrayOf("bigint", grants.stream().map(Grant::userId).toArray()));
                entries.setArray(4, connection.createArrayOf("bigint", grants.stream().map(Grant::amount).toArray()));
                entries.setArray(5, connection.createArrayOf("uuid", grants.stream().map(Grant::messageId).toArray()));
                entries.executeUpdate();
            }
        });
        for (Grant grant : grants) {
            try {
                applied.fire(new PointsApplied(consumer, grant.messageId(), grant.userId(), grant.amount()));
            } catch (RuntimeException e) {
                throw new BatchMemberFailed(grant.messageId(), e);
            }
        }
    }

    /** One grant of a batch. */
    public record Grant(UUID messageId, long userId, long amount) {
    }

    /**
     * Writes the ledger entry with a prepared statement on the session's connection, in its transaction: the entry is
     * never read or changed in that transaction, and an entity insert through Hibernate (the persist, then the
     * insert at flush) was about a sixth of the workers' CPU per message.
     */
    private void record(String consumer, UUID messageId, long userId, long signedAmount, PointGrant.Kind kind) {
        OffsetDateTime at = Instant.now().atOffset(ZoneOffset.UTC);
        Panache.getSession().doWork(connection -> {
            try (PreparedStatement entry = connection.prepareStatement(RECORD)) {
                entry.setString(1, consumer);
                entry.setObject(2, at);
                entry.setString(3, kind.name());
                entry.setLong(4, userId);
                entry.setLong(5, signedAmount);
                entry.setObject(6, messageId);
                entry.executeUpdate();
            }
        });
        applied.fire(new PointsApplied(consumer, messageId, userId, signedAmount));
    }
}
