package io.pointsinbox.points;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
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

/**
 * The business effect of a message, through the Panache entities; runs only inside the transaction that claimed the
 * inbox row. A grant is two inserts, the balance's an upsert ({@link UserPoints}) and the ledger entry's; a
 * redemption locks the balance, lowers it if it covers the amount, and records the entry. Nothing is written until
 * the caller flushes.
 */
@ApplicationScoped
public class PointsLedger {

    /**
     * A batch of grants as one statement: the balances summed per user and upserted in user order (two batches
     * touching the same users queue up instead of deadlocking), and the ledger entries. PostgreSQL runs a
     * data-modifying {@code WITH} to completion whether or not the outer statement reads it.
     */
    private static final String GRANT_ALL = """
            with credited as (
                insert into user_points (consumer, user_id, balance)
                select ?, t.user_id, t.amount from unnest(?::bigint[], ?::bigint[]) as t(user_id, amount)
                order by t.user_id
                on conflict (consumer, user_id) do update set balance = user_points.balance + excluded.balance)
            insert into point_grant (id, consumer, granted_at, kind, user_id, amount, message_id)
            select nextval('point_grant_seq'), ?, ?, 'GRANT', t.user_id, t.amount, t.message_id
            from unnest(?::bigint[], ?::bigint[], ?::uuid[]) as t(user_id, amount, message_id)
            """;

    private final Event<PointsApplied> applied;

    PointsLedger(Event<PointsApplied> applied) {
        this.applied = applied;
    }

    @Transactional(TxType.MANDATORY)
    public InboxOutcome grant(String consumer, UUID messageId, long userId, long amount) {
        UserPoints.credit(consumer, userId, amount);
        PointGrant.record(consumer, userId, PointGrant.Kind.GRANT, amount, messageId, Instant.now());
        applied.fire(new PointsApplied(consumer, messageId, userId, amount));
        return InboxOutcome.PROCESSED;
    }

    /** A redemption the balance cannot cover is a business outcome, recorded like any other, not a failure. */
    @Transactional(TxType.MANDATORY)
    public InboxOutcome redeem(String consumer, UUID messageId, long userId, long amount) {
        UserPoints points = UserPoints.findForUpdate(consumer, userId).orElse(null);
        if (points == null || points.balance < amount) {
            return InboxOutcome.REJECTED_INSUFFICIENT_BALANCE;
        }
        points.balance -= amount;
        PointGrant.record(consumer, userId, PointGrant.Kind.REDEMPTION, -amount, messageId, Instant.now());
        applied.fire(new PointsApplied(consumer, messageId, userId, -amount));
        return InboxOutcome.PROCESSED;
    }

    /**
     * Applies several grants in the caller's transaction with one statement ({@link #GRANT_ALL}): the balances,
     * summed per user and locked in user order, and the ledger entries. {@link PointsApplied} is then fired for each
     * grant, as {@link #grant} does.
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
        OffsetDateTime at = Instant.now().atOffset(ZoneOffset.UTC);
        int entries = write(GRANT_ALL, (statement, connection) -> {
            statement.setString(1, consumer);
            statement.setArray(2, connection.createArrayOf("bigint", perUser.keySet().toArray()));
            statement.setArray(3, connection.createArrayOf("bigint", perUser.values().toArray()));
            statement.setString(4, consumer);
            statement.setObject(5, at);
            statement.setArray(6, connection.createArrayOf("bigint", grants.stream().map(Grant::userId).toArray()));
            statement.setArray(7, connection.createArrayOf("bigint", grants.stream().map(Grant::amount).toArray()));
            statement.setArray(8, connection.createArrayOf("uuid", grants.stream().map(Grant::messageId).toArray()));
        });
        if (entries != grants.size()) {
            throw new IllegalStateException("a batch of " + grants.size() + " grants wrote " + entries
                    + " ledger entries");
        }
        for (Grant grant : grants) {
            try {
                applied.fire(new PointsApplied(consumer, grant.messageId(), grant.userId(), grant.amount()));
            } catch (RuntimeException e) {
                throw new BatchMemberFailed(grant.messageId(), e);
            }
        }
    }

    /**
     * Runs one of the statements above on the session's connection, in the caller's transaction.
     *
     * @return the update count: the ledger entries it wrote
     */
    private static int write(String sql, Binder binder) {
        return Panache.getSession().doReturningWork(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                binder.bind(statement, connection);
                return statement.executeUpdate();
            }
        });
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement statement, Connection connection) throws SQLException;
    }

    /** One grant of a batch. */
    public record Grant(UUID messageId, long userId, long amount) {
    }
}
