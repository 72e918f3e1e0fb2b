package io.pointsinbox.messaging;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import org.eclipse.microprofile.reactive.messaging.Incoming;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.ops.InboxMetrics;
import io.pointsinbox.points.PointsMessageHandler;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;
import io.smallrye.reactive.messaging.annotations.Blocking;

/**
 * The AMQP adapter: one delivery, one transaction. Returning normally (applied or duplicate) lets the connector
 * accept the message after the commit; an exception rolls back, inbox row included, and the configured
 * {@code modified-failed} strategy hands it back to the broker for a counted redelivery.
 */
@ApplicationScoped
public class PointsGrantedConsumer {

    public static final String CHANNEL = "points-granted";

    private final EnvelopeReader reader;
    private final PointsMessageHandler handler;
    private final DeadLetters deadLetters;
    private final InboxMetrics metrics;
    private final PointsConfig config;

    PointsGrantedConsumer(EnvelopeReader reader, PointsMessageHandler handler, DeadLetters deadLetters,
            InboxMetrics metrics, PointsConfig config) {
        this.reader = reader;
        this.handler = handler;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.config = config;
    }

    @Incoming(CHANNEL)
    @Blocking(value = "points-workers", ordered = false)
    @Transactional
    public void onMessage(Object ignoredConvertedBody, IncomingAmqpMetadata amqp) {
        byte[] body = null;
        PointsEnvelope envelope;
        try {
            body = AmqpBodies.bytes(amqp);
            envelope = reader.read(body, amqp.getId());
        } catch (InvalidEnvelopeException e) {
            deadLetters.forward(amqp, body == null ? new byte[0] : body, config.consumer(), e.getMessage());
            metrics.rejected(config.consumer());
            return;
        }
        handler.handle(config.consumer(), envelope);
    }
}
