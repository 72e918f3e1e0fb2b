package io.pointsinbox.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import org.hibernate.exception.ConstraintViolationException;

import io.quarkus.hibernate.orm.panache.Panache;
import io.quarkus.narayana.jta.QuarkusTransaction;

/**
 * Claims a message id for a consumer. The unique index decides, never a prior SELECT: the row is inserted and
 * flushed at once so that a duplicate surfaces here, inside the caller's transaction, and not at commit.
 */
@ApplicationScoped
public class InboxGuard {

    private static final String CLAIM_ALL = """
            insert into inbox_message (id, consumer, message_id, message_type, payload_json, payload_hash, outcome,
                                       received_at, processed_at)
            select nextval('inbox_message_seq'), ?, e.message_id, e.message_type, e.payload_json::jsonb,
                   e.payload_hash, 'PROCESSED', ?, ?
            from unnest(?::uuid[], ?::varchar[], ?::text[], ?::varchar[])
                 with ordinality as e(message_id, message_type, payload_json, payload_hash, position)
            order by e.position
            on conflict (consumer, message_id) do nothing
            returning message_id
            """;

    /**
     * One unique-index probe per id, whatever the planner's statistics say. The obvious {@code where consumer = ?
     * and message_id = any(?)} is a prepared statement whose generic plan PostgreSQL builds once per connection: built
     * while the table is small or has no statistics (a new deployment, autovacuum off), it probes the index by
     * consumer alone and filters the ids, reading every row of the consumer for each duplicate, and keeps doing so
     * as the inbox grows, until an ANALYZE replans it. The lateral subquery with its {@code limit} cannot be
     * flattened into a join: each id is an equality on both columns of the unique index. {@code InboxPlanTest}
     * checks the plan.
     */
    static final String ORIGINALS = """
            select i.message_id, i.payload_hash, i.outcome, i.received_at, i.message_type, i.payload_json
            from unnest(?::uuid[]) as k(message_id)
            cross join lateral (
                select m.message_id, m.payload_hash, m.outcome, m.received_at, m.message_type, m.payload_json
                from inbox_message m
                where m.consumer = ? and m.message_id = k.message_id
                limit 1) i
            """;

    /**
     * {@link #ORIGINALS} for one id, the per-message duplicate: both columns of the unique index by equality, no
     * array to build and unnest. {@code InboxPlanTest} checks that its generic plan stays an index probe too.
     */
    static final String ORIGINAL = """
            select m.message_id, m.payload_hash, m.outcome, m.received_at, m.message_type, m.payload_json
            from inbox_message m
            where m.consumer = ? and m.message_id = ?
            """;

    private static final String RECORD_OUTCOME = """
            update inbox_message set outcome = ? where consumer = ? and message_id = ?
            """;

    private final ClaimsInFlight inFlight;
    private final DataSource dataSource;

    InboxGuard(ClaimsInFlight inFlight, DataSource dataSource) {
        this.inFlight = inFlight;
        this.dataSource = dataSource;
    }

    /**
     * Inserts the inbox row and returns the claim, or says that the (consumer, message id) pair was already claimed.
     * A concurrent first delivery of the same id makes this call wait on the index until that transaction ends. On a
     * duplicate the transaction is marked rollback-only: nothing of this delivery may commit.
     */
    @Transactional(TxType.MANDATORY)
    public Claim claim(String consumer, InboxEntry entry) {
        ClaimsInFlight.Running claims = inFlight.enter(consumer, entry.messageId());
        InboxMessage row = row(consumer, entry, Instant.now());
        try {
            row.persistAndFlush();
            claims.inserted();
            return Claim.claimed(row);
        } catch (RuntimeException e) {
            if (!isInboxKeyViolation(e)) {
                throw e;
            }
            QuarkusTransaction.setRollbackOnly();
            // The index made this insert wait for a first delivery running here, which then committed: in flight.
            return Claim.alreadyClaimed(claims.rowInsertedHere());
        }
    }

    /**
     * Claims several entries in one statement, for batched mode: {@code INSERT ... ON CONFLICT DO NOTHING RETURNING}
     * in the order given (callers sort by id, so that two batches wait on each other's keys in one order and never
     * deadlock). An id already claimed, or claimed by a transaction that commits while this one waits on the index,
     * comes back not won; the transaction stays usable. The ids must be distinct.
     *
     * @return one claim per entry, in the order given
     */
    @Transactional(TxType.MANDATORY)
    public List<Claim> claimAll(String consumer, List<InboxEntry> entries) {
        List<ClaimsInFlight.Running> registered = new ArrayList<>(entries.size());
        for (InboxEntry entry : entries) {
            registered.add(inFlight.enter(consumer, entry.messageId()));
        }
        Instant now = Instant.now();
        Set<UUID> inserted = Panache.getSession().doReturningWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(CLAIM_ALL)) {
                OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
                insert.setString(1, consumer);
                insert.setObject(2, at);
                insert.setObject(3, at);
                insert.setArray(4, connection.createArrayOf("uuid",
                        entries.stream().map(InboxEntry::messageId).toArray()));
                insert.setArray(5, connection.createArrayOf("varchar",
                        entries.stream().map(InboxEntry::type).toArray()));
                insert.setArray(6, connection.createArrayOf("text",
                        entries.stream().map(InboxEntry::payloadJson).toArray()));
                insert.setArray(7, connection.createArrayOf("varchar",
                        entries.stream().map(InboxEntry::payloadHash).toArray()));
                Set<UUID> ids = new HashSet<>();
                try (ResultSet rows = insert.executeQuery()) {
                    while (rows.next()) {
                        ids.add(rows.getObject(1, UUID.class));
                    }
                }
                return ids;
            }
        });
        List<Claim> claims = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            InboxEntry entry = entries.get(i);
            ClaimsInFlight.Running running = registered.get(i);
            if (inserted.contains(entry.messageId())) {
                running.inserted();
                claims.add(Claim.claimed(row(consumer, entry, now)));
            } else {
                claims.add(Claim.alreadyClaimed(running.rowInsertedHere()));
            }
        }
        return claims;
    }

    /** Records a business outcome on a row claimed by {@link #claimAll} in the caller's transaction. */
    @Transactional(TxType.MANDATORY)
    public void recordOutcome(String consumer, UUID messageId, InboxOutcome outcome) {
        int rows = Panache.getSession().doReturningWork(connection -> {
            try (PreparedStatement update = connection.prepareStatement(RECORD_OUTCOME)) {
                update.setString(1, outcome.name());
                update.setString(2, consumer);
                update.setObject(3, messageId);
                return update.executeUpdate();
            }
        });
        if (rows != 1) {
            throw new IllegalStateException("the claim of " + messageId + " for " + consumer + " is not there");
        }
    }

    /**
     * The committed claims of these ids, by id: what a batch's duplicates are compared with. Unlike
     * {@link #original}, it runs in the caller's transaction, which a batch's claim left usable.
     */
    @Transactional(TxType.MANDATORY)
    public Map<UUID, InboxMessage> originals(String consumer, Collection<UUID> messageIds) {
        if (messageIds.isEmpty()) {
            return Map.of();
        }
        // Read as plain values, not managed entities: nothing for the flush at commit to check.
        return Panache.getSession().doReturningWork(connection -> read(connection, consumer, messageIds));
    }

    private static Map<UUID, InboxMessage> read(Connection connection, String consumer, Collection<UUID> messageIds)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(ORIGINALS)) {
            select.setArray(1, connection.createArrayOf("uuid", messageIds.toArray()));
            select.setString(2, consumer);
            Map<UUID, InboxMessage> originals = new HashMap<>();
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    InboxMessage row = row(consumer, rows);
                    originals.put(row.messageId, row);
                }
            }
            return originals;
        }
    }

    private static Optional<InboxMessage> read(Connection connection, String consumer, UUID messageId)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(ORIGINAL)) {
            select.setString(1, consumer);
            select.setObject(2, messageId);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? Optional.of(row(consumer, rows)) : Optional.empty();
            }
        }
    }

    /** A row of {@link #ORIGINAL} or {@link #ORIGINALS}, as a plain value. */
    private static InboxMessage row(String consumer, ResultSet rows) throws SQLException {
        InboxMessage row = new InboxMessage();
        row.consumer = consumer;
        row.messageId = rows.getObject(1, UUID.class);
        row.payloadHash = rows.getString(2);
        row.outcome = InboxOutcome.valueOf(rows.getString(3));
        row.receivedAt = rows.getObject(4, OffsetDateTime.class).toInstant();
        row.messageType = rows.getString(5);
        row.payloadJson = rows.getString(6);
        return row;
    }

    /**
     * The committed claim that made a delivery a duplicate. The caller's transaction has failed on the unique index
     * and can run no further statement, so this is read outside it, as one auto-commit statement on a connection of
     * its own: no second transaction to begin and commit, no session (a duplicate then costs the service about as much
     * CPU as a fresh message). Only telemetry and the id-conflict check use it; the decision was the index's.
     */
    @Transactional(TxType.NOT_SUPPORTED)
    public Optional<InboxMessage> original(String consumer, UUID messageId) {
        try (Connection connection = dataSource.getConnection()) {
            return read(connection, consumer, messageId);
        } catch (SQLException e) {
            throw new PersistenceException("could not read the inbox row of message " + messageId, e);
        }
    }

    /**
     * The inbox row of a claim, written complete in one insert: the outcome is PROCESSED unless the effect says
     * otherwise (a business rejection), which saves an update per message on the common path.
     */
    private static InboxMessage row(String consumer, InboxEntry entry, Instant receivedAt) {
        InboxMessage row = new InboxMessage();
        row.consumer = consumer;
        row.messageId = entry.messageId();
        row.messageType = entry.type();
        row.payloadJson = entry.payloadJson();
        row.payloadHash = entry.payloadHash();
        row.outcome = InboxOutcome.PROCESSED;
        row.receivedAt = receivedAt;
        row.processedAt = receivedAt;
        return row;
    }

    static boolean isInboxKeyViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConstraintViolationException violation) {
                return InboxMessage.UNIQUE_KEY.equals(violation.getConstraintName());
            }
        }
        return false;
    }
}
