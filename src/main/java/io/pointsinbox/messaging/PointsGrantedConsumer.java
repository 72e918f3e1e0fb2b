package io.pointsinbox.messaging;

import java.time.Instant;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.MDC;

import io.pointsinbox.config.Durations;
import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.config.RetentionConfig;
import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.contract.InvalidEnvelopeException;
import io.pointsinbox.contract.PointsEnvelope;
import io.pointsinbox.ops.InboxMetrics;
import io.pointsinbox.points.ProcessingResult;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;

/**
 * The AMQP adapter: one delivery, one transaction (in batched mode, one batch, one transaction: see
 * {@link GrantBatcher}). Returning normally (applied or duplicate) lets the connector
 * accept the message after the commit; an exception rolls back, inbox row included, and the configured
 * {@code modified-failed} strategy hands it back to the broker for a counted redelivery.
 */
@ApplicationScoped
public class PointsGrantedConsumer {

    public static final String CHANNEL = "points-granted";

    private final EnvelopeReader reader;
    private final DeadLetters deadLetters;
    private final InboxMetrics metrics;
    private final PointsConfig config;
    private final RetentionConfig retention;
    private final ConsumptionSwitch consumption;
    private final DeliveryPath path;

    PointsGrantedConsumer(EnvelopeReader reader, DeliveryPath path, DeadLetters deadLetters,
            InboxMetrics metrics, PointsConfig config, RetentionConfig retention, ConsumptionSwitch consumption) {
        this.reader = reader;
        this.path = path;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.config = config;
        this.retention = retention;
        this.consumption = consumption;
    }

    @Incoming(CHANNEL)
    @RunOnVirtualThread
    @AwaitsDatabase
    @DeliveryLogContext
    @Transactional
    public void onMessage(Object convertedBody, IncomingAmqpMetadata amqp) {
        consumption.deliveryStarted();
        // A failure rolls the transaction back; @AwaitsDatabase then has the database probed before the message goes
        // back to the broker.
        consume(amqp);
    }

    private void consume(IncomingAmqpMetadata amqp) {
        long start = System.nanoTime();
        if (amqp.getDeliveryCount() > 0) {
            metrics.redelivered(config.consumer());
        }
        PointsEnvelope envelope;
        try {
            // The connector's own conversion of the body is not used: the bytes are read as the sender wrote them.
            envelope = reader.readWithTransportId(AmqpBodies.bytes(amqp),
                    () -> AmqpMessageIds.text(amqp.getMessage().unwrap().getMessageId()));
        } catch (InvalidEnvelopeException e) {
            if (e.messageId() != null) {
                nameInLog(e.messageId()); // its id was readable (the fault is elsewhere): the line names it too
            }
            deadLetter(amqp, e.getMessage(), "rejected", start);
            return;
        }
        // Every line about this message names it, the dead-letter line of a conflict included; the context is
        // cleared, and a failure named after it, once the delivery has left its transaction (@DeliveryLogContext).
        nameInLog(envelope.messageId());
        Instant created = Instant.ofEpochMilli(amqp.getCreationTime());
        if (amqp.getCreationTime() > 0 && created.isBefore(Instant.now().minus(retention.window()))) {
            // Its inbox row, if it was ever applied, may already be gone: applying it now could apply it twice.
            deadLetter(amqp, "too_old: created " + created + ", before the inbox retention window of "
                    + Durations.readable(retention.window()) + " (POINTS_RETENTION_WINDOW)", "too_old", start);
            return;
        }
        ProcessingResult result = path.apply(envelope);
        if (result.status() == ProcessingResult.Status.ID_CONFLICT) {
            // A sender's bug, never applied: the message is kept on the dead-letter address as evidence.
            deadLetters.forward(amqp, config.consumer(), "id_conflict: " + result.conflict());
        }
    }

    /** Puts the consumer and the message id in the log context of this delivery (@DeliveryLogContext clears it). */
    private void nameInLog(UUID messageId) {
        MDC.put(DeliveryLogContext.CONSUMER, config.consumer());
        MDC.put(DeliveryLogContext.MESSAGE_ID, messageId.toString());
    }

    private void deadLetter(IncomingAmqpMetadata amqp, String reason, String outcome, long start) {
        deadLetters.forward(amqp, config.consumer(), reason);
        metrics.rejected(config.consumer(), outcome, start);
    }
}
