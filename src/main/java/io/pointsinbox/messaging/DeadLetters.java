package io.pointsinbox.messaging;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.jboss.logging.Logger;

import io.pointsinbox.config.PointsConfig;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;
import io.smallrye.reactive.messaging.amqp.OutgoingAmqpMetadata;
import io.vertx.core.json.JsonObject;

/**
 * Forwards a poison message, untouched and with its reason, to the dead-letter address and waits for the broker to
 * accept it; only then may the original be acknowledged. The connector's nack can only apply one disposition to
 * every failure of a channel, and a poison message must not enter the redelivery loop meant for transient ones.
 */
@ApplicationScoped
public class DeadLetters {

    public static final String CHANNEL = "points-dead-letter";
    public static final String REASON = "x-dead-letter-reason";
    public static final String ORIGINAL_ADDRESS = "x-original-address";

    private static final Logger LOG = Logger.getLogger(DeadLetters.class);

    private final MutinyEmitter<byte[]> emitter;
    private final String deadLetterAddress;

    DeadLetters(@Channel(CHANNEL) MutinyEmitter<byte[]> emitter, PointsConfig config) {
        this.emitter = emitter;
        this.deadLetterAddress = config.deadLetterAddress();
    }

    void forward(IncomingAmqpMetadata incoming, byte[] body, String consumer, String reason) {
        OutgoingAmqpMetadata.OutgoingAmqpMetadataBuilder outgoing = OutgoingAmqpMetadata.builder()
                .withDurable(true)
                .withApplicationProperties(new JsonObject()
                        .put(REASON, reason)
                        .put(ORIGINAL_ADDRESS, incoming.getAddress())
                        .put("x-consumer", consumer));
        if (incoming.getId() != null) {
            outgoing.withMessageId(incoming.getId());
        }
        if (incoming.getContentType() != null) {
            outgoing.withContentType(incoming.getContentType());
        }
        emitter.sendMessageAndAwait(Message.of(body, Metadata.of(outgoing.build())));
        LOG.warnf("Poison message (AMQP message-id %s, %d bytes) dead-lettered to %s for consumer %s: %s",
                incoming.getId(), body.length, deadLetterAddress, consumer, reason);
    }
}
