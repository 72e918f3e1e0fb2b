package io.pointsinbox.messaging;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;
import org.jboss.logging.Logger;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.ops.InboxMetrics;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;
import io.smallrye.reactive.messaging.amqp.OutgoingAmqpMetadata;
import io.vertx.core.json.JsonObject;

/**
 * Forwards a poison message, untouched and with its reason, to the dead-letter address and waits for the broker to
 * accept it; only then may the original be acknowledged. The connector's nack can only apply one disposition to
 * every failure of a channel, and a poison message must not enter the redelivery loop meant for transient ones.
 * <p>
 * The wait is bounded: a dead-letter link that never confirms (a connection black-holed by the network, or the
 * connector's sender closed under it while reconnecting) would otherwise hold a worker until the transaction
 * timeout and leave the original unsettled. Past the bound the original is handed back for redelivery, so a
 * confirmed copy may later be joined by the unconfirmed one: the dead-letter address is at least once. A copy the
 * broker refuses (a dead-letter address full with the FAIL policy) takes the same path: the connector keeps it
 * until the broker takes it, the original is handed back at the bound, and after its delivery attempts the broker
 * moves the original to its own dead-letter address.
 */
@ApplicationScoped
public class DeadLetters {

    public static final String CHANNEL = "points-dead-letter";
    public static final String REASON = "x-dead-letter-reason";
    public static final String ORIGINAL_ADDRESS = "x-original-address";

    private static final Logger LOG = Logger.getLogger(DeadLetters.class);

    private final MutinyEmitter<byte[]> emitter;
    private final String deadLetterAddress;
    private final Duration timeout;
    private final InboxMetrics metrics;

    DeadLetters(@Channel(CHANNEL) MutinyEmitter<byte[]> emitter, PointsConfig config, InboxMetrics metrics) {
        this.emitter = emitter;
        this.deadLetterAddress = config.deadLetterAddress();
        this.timeout = config.deadLetterTimeout();
        this.metrics = metrics;
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
        long start = System.nanoTime();
        try {
            emitter.sendMessage(Message.of(body, Metadata.of(outgoing.build()))).await().atMost(timeout);
        } catch (TimeoutException e) {
            metrics.deadLetterUnconfirmed(consumer, start);
            throw new DeadLetterUnconfirmedException("The broker did not confirm the dead-letter copy of AMQP "
                    + "message-id " + incoming.getId() + " on " + deadLetterAddress + " within " + timeout
                    + " (POINTS_DEAD_LETTER_TIMEOUT): the message is handed back for redelivery");
        }
        LOG.warnf("Poison message (AMQP message-id %s, %d bytes) dead-lettered to %s for consumer %s: %s",
                incoming.getId(), body.length, deadLetterAddress, consumer, reason);
    }

    /** The dead-letter copy was not confirmed in time; the original goes back to the broker for another attempt. */
    public static final class DeadLetterUnconfirmedException extends RuntimeException {

        DeadLetterUnconfirmedException(String message) {
            super(message, null, false, false);
        }
    }
}
