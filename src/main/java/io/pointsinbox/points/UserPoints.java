package io.pointsinbox.points;

import java.io.Serializable;
import java.util.Optional;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/**
 * A user's points balance in one consumer's ledger, read through this entity; {@link PointsLedger} changes it, one
 * statement per message.
 */
@Entity
@Table(name = "user_points")
@IdClass(UserPoints.Key.class)
public class UserPoints extends PanacheEntityBase {

    @Id
    @Column(nullable = false, length = 100)
    public String consumer;

    @Id
    @Column(name = "user_id", nullable = false)
    public Long userId;

    @Column(nullable = false)
    public long balance;

    public static Optional<UserPoints> find(String consumer, long userId) {
        return findByIdOptional(new Key(consumer, userId));
    }

    /** Composite key: the consumer scopes the ledger. */
    public record Key(String consumer, Long userId) implements Serializable {
        public Key() {
            this(null, null);
        }
    }
}
