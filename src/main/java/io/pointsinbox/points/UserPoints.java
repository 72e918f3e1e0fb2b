package io.pointsinbox.points;

import java.io.Serializable;
import java.util.Optional;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.LockModeType;
import jakarta.persistence.Table;

import org.hibernate.annotations.SQLInsert;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;

/**
 * A user's points balance in one consumer's ledger.
 * <p>
 * A grant persists a new instance holding the amount to add: its insert is an upsert ({@link SQLInsert}) that
 * creates the row or adds to the balance already there, in one statement and under the row's lock. Two first grants
 * of a new user racing on the primary key both land, and concurrent grants to one user never lose an update, with
 * no read before the write. The instance a grant persisted therefore holds the amount added, not the resulting
 * balance: read a balance with {@link #find}, in a transaction of its own. A redemption locks the row
 * ({@link #findForUpdate}) and lowers the balance, so that concurrent redemptions queue up and each sees what the
 * previous one left.
 */
@Entity
@Table(name = "user_points")
@IdClass(UserPoints.Key.class)
// Hibernate binds the non-key columns first, then the key's, in its own order: balance, consumer, user_id.
@SQLInsert(sql = "insert into user_points (balance, consumer, user_id) values (?, ?, ?) "
        + "on conflict (consumer, user_id) do update set balance = user_points.balance + excluded.balance")
public class UserPoints extends PanacheEntityBase {

    @Id
    @Column(nullable = false, length = 100)
    public String consumer;

    @Id
    @Column(name = "user_id", nullable = false)
    public Long userId;

    @Column(nullable = false)
    public long balance;

    /** Adds {@code amount} to the balance, creating it if need be, when the session flushes. */
    public static void credit(String consumer, long userId, long amount) {
        UserPoints credit = new UserPoints();
        credit.consumer = consumer;
        credit.userId = userId;
        credit.balance = amount;
        credit.persist();
    }

    public static Optional<UserPoints> find(String consumer, long userId) {
        return findByIdOptional(new Key(consumer, userId));
    }

    /** The balance, locked until the transaction ends ({@code SELECT ... FOR UPDATE}). */
    public static Optional<UserPoints> findForUpdate(String consumer, long userId) {
        return findByIdOptional(new Key(consumer, userId), LockModeType.PESSIMISTIC_WRITE);
    }

    /** Composite key: the consumer scopes the ledger. */
    public record Key(String consumer, Long userId) implements Serializable {
        public Key() {
            this(null, null);
        }
    }
}
