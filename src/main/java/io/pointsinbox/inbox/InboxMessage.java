package io.pointsinbox.inbox;

import java.time.Instant;
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

/** One consumer's claim on one message id; the unique (consumer, message_id) key makes processing idempotent. */
@Entity
@Table(name = "inbox_message")
public class InboxMessage extends PanacheEntityBase {

    /** Name of the unique constraint whose violation means "already claimed". */
    public static final String UNIQUE_KEY = "inbox_message_consumer_message_id_key";

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "inbox_message_seq")
    @SequenceGenerator(name = "inbox_message_seq", sequenceName = "inbox_message_seq", allocationSize = 50)
    public Long id;

    @Column(nullable = false, length = 100)
    public String consumer;

    @Column(name = "message_id", nullable = false)
    public UUID messageId;

    @Column(name = "message_type", nullable = false, length = 100)
    public String messageType;

    @JdbcTypeCode(SqlTypes.JSON)
    @Column(name = "payload_json", nullable = false)
    public String payloadJson;

    @Column(name = "payload_hash", nullable = false, length = 64)
    public String payloadHash;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 40)
    public InboxOutcome outcome;

    // Bound as an OffsetDateTime: the default binding of an Instant goes through a UTC Calendar, about half the
    // cost of binding the row's values.
    @JdbcTypeCode(SqlTypes.TIMESTAMP_WITH_TIMEZONE)
    @Column(name = "received_at", nullable = false)
    public Instant receivedAt;

    @JdbcTypeCode(SqlTypes.TIMESTAMP_WITH_TIMEZONE)
    @Column(name = "processed_at")
    public Instant processedAt;

    public static long countByConsumer(String consumer) {
        return count("consumer", consumer);
    }
}
