package io.pointsinbox.points;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Sort;

/**
 * One ledger entry: a grant (positive amount) or a redemption (negative amount). A balance always equals the sum of
 * its entries; the (consumer, message_id) key is a second guard behind the inbox.
 */
@Entity
@Table(name = "point_grant")
public class PointGrant extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "point_grant_seq")
    @SequenceGenerator(name = "point_grant_seq", sequenceName = "point_grant_seq", allocationSize = 50)
    public Long id;

    @Column(nullable = false, length = 100)
    public String consumer;

    @Column(name = "user_id", nullable = false)
    public long userId;

    @Column(nullable = false)
    public long amount;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 20)
    public Kind kind;

    @Column(name = "message_id", nullable = false)
    public UUID messageId;

    // Bound as an OffsetDateTime, as the inbox's timestamps are: cheaper than an Instant's UTC Calendar.
    @JdbcTypeCode(SqlTypes.TIMESTAMP_WITH_TIMEZONE)
    @Column(name = "granted_at", nullable = false)
    public Instant grantedAt;

    /** Whether points were added or taken away. */
    public enum Kind {
        GRANT,
        REDEMPTION
    }

    /** Records a ledger entry, written when the session flushes. */
    public static void record(String consumer, long userId, Kind kind, long amount, UUID messageId, Instant at) {
        PointGrant entry = new PointGrant();
        entry.consumer = consumer;
        entry.userId = userId;
        entry.kind = kind;
        entry.amount = amount;
        entry.messageId = messageId;
        entry.grantedAt = at;
        entry.persist();
    }

    public static List<PointGrant> newestFirst(String consumer, long userId, int limit) {
        return find("consumer = ?1 and userId = ?2", Sort.descending("grantedAt", "id"), consumer, userId)
                .page(Page.ofSize(limit))
                .list();
    }

    public static long countByConsumer(String consumer) {
        return count("consumer", consumer);
    }
}
