package io.pointsinbox.messaging;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.amqp.messaging.Section;
import org.apache.qpid.proton.codec.DroppingWritableBuffer;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

import io.pointsinbox.config.Durations;
import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.contract.Shown;
import io.pointsinbox.ops.InboxMetrics;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;

/**
 * Forwards a message that will never be applied to the dead-letter address, as the original plus its reason, and
 * waits for the broker to accept the copy; only then may the original be acknowledged. The connector's nack can only
 * apply one disposition to every failure of a channel, and a poison message must not enter the redelivery loop meant
 * for transient ones.
 * <p>
 * The copy is the original message, section by section, so that an operator can re-drive it: the same body section
 * (data, a value of any AMQP type, a sequence, or none; several data or amqp-sequence sections become one holding
 * them all, the same body as AMQP reads it), the same properties except {@code to}, the same message
 * annotations, application properties and footer, durable, with the original's priority. Three application
 * properties are added: {@value #REASON}, {@value #ORIGINAL_ADDRESS} and {@value #CONSUMER}. Delivery annotations
 * belong to one transfer and are not copied; neither is the header's time to live, so a dead letter does not expire
 * because the original was short-lived (an absolute-expiry-time set by the sender is a property, and is kept).
 * <p>
 * The wait is bounded: a dead-letter link that never confirms (a connection black-holed by the network, or the
 * connector's sender closed under it while reconnecting) would otherwise hold a worker until the transaction
 * timeout and leave the original unsettled. Past the bound the original is handed back for redelivery, so a
 * confirmed copy may later be joined by the unconfirmed one: the dead-letter address is at least once. A copy the
 * broker refuses (a dead-letter address full with the FAIL policy) takes the same path: the connector keeps it
 * until the broker takes it, the original is handed back at the bound, and after its delivery attempts the broker
 * moves the original to its own dead-letter address. A copy that cannot be encoded at all (the AMQP library reads
 * some values it cannot write back) is never handed to the connector: the original takes the same path.
 */
@ApplicationScoped
public class DeadLetters {

    public static final String CHANNEL = "points-dead-letter";
    public static final String REASON = "x-dead-letter-reason";
    public static final String ORIGINAL_ADDRESS = "x-original-address";
    public static final String CONSUMER = "x-consumer";
    private static final int MAX_REASON = 1024;

    private static final Logger LOG = Logger.getLogger(DeadLetters.class);

    private final MutinyEmitter<org.apache.qpid.proton.message.Message> emitter;
    private final String address;
    private final String deadLetterAddress;
    private final Duration timeout;
    private final InboxMetrics metrics;

    DeadLetters(@Channel(CHANNEL) MutinyEmitter<org.apache.qpid.proton.message.Message> emitter, PointsConfig config,
            InboxMetrics metrics) {
        this.emitter = emitter;
        this.address = config.address();
        this.deadLetterAddress = config.deadLetterAddress();
        this.timeout = config.deadLetterTimeout();
        this.metrics = metrics;
    }

    /**
     * Sends the copy with its reason and returns once the broker has it; throws when it did not confirm in time, or
     * when the copy cannot be encoded at all.
     */
    void forward(IncomingAmqpMetadata incoming, String consumer, String reason) {
        org.apache.qpid.proton.message.Message original = incoming.getMessage().unwrap();
        String originalAddress = original.getAddress() != null ? original.getAddress() : address;
        // The values a reason quotes are escaped already; this also keeps the whole reason one line of bounded length.
        String boundedReason = Shown.text(reason, MAX_REASON);
        long start = System.nanoTime();
        org.apache.qpid.proton.message.Message copy;
        try {
            copy = copy(original, Map.of(REASON, boundedReason, ORIGINAL_ADDRESS, originalAddress, CONSUMER, consumer));
            // Encoded here first, on this thread: the AMQP library can read some values that it cannot write back (an
            // array of described values), and an encoding failure inside the connector's sender, on the event loop,
            // breaks the dead-letter link for every message after it.
            copy.encode(new DroppingWritableBuffer());
        } catch (RuntimeException e) {
            metrics.failed(consumer, start);
            String why = e instanceof BodySections.MixedSectionsException ? e.getMessage()
                    : "the AMQP library reads this message and cannot encode it again (" + e + ")";
            throw new DeadLetterImpossibleException("The message (" + transportId(original) + ") is refused ("
                    + boundedReason + ") but its dead-letter copy cannot be written: " + why + ". It is handed back to"
                    + " the broker, which moves it, as it was sent, to its own dead-letter address after"
                    + " max-delivery-attempts", e);
        }
        if (linkLost()) {
            metrics.failed(consumer, start);
            throw new DeadLetterLinkLostException("The message (" + transportId(original) + ") is refused ("
                    + boundedReason + ") but the dead-letter channel to " + deadLetterAddress + " is closed for good"
                    + " (the broker refused its link, or its reconnection attempts are spent). It is handed back to the"
                    + " broker, which moves it, as it was sent, to its own dead-letter address after"
                    + " max-delivery-attempts; liveness is down so that the pod is restarted");
        }
        try {
            emitter.sendMessage(Message.of(copy)).await().atMost(timeout);
        } catch (TimeoutException e) {
            metrics.deadLetterUnconfirmed(consumer, start);
            throw new DeadLetterUnconfirmedException("The broker did not confirm the dead-letter copy of the "
                    + "message (" + transportId(original) + ") on " + deadLetterAddress + " within "
                    + Durations.readable(timeout)
                    + " (POINTS_DEAD_LETTER_TIMEOUT): the message is handed back for redelivery");
        }
        LOG.warnf("Message (%s) dead-lettered to %s for consumer %s: %s", transportId(original), deadLetterAddress,
                consumer, boundedReason);
    }

    /**
     * Whether the dead-letter channel is closed for good: when the broker refuses its sender link (a missing
     * permission to send to the dead-letter address, an address it does not create) or its reconnection attempts are
     * spent, the AMQP connector reports the channel failed, closes every channel and never attaches them again; only a
     * restart rebuilds them.
     */
    public boolean linkLost() {
        return emitter.isCancelled();
    }

    /** How a log line names a message by its AMQP message-id: {@code AMQP message-id 42}, or that it has none. */
    private static String transportId(org.apache.qpid.proton.message.Message message) {
        Object id = message.getMessageId();
        return id == null ? "no AMQP message-id" : "AMQP message-id " + Shown.messageId(id);
    }

    /**
     * The original's bare message and annotations, durable, with {@code added} among its application properties; a body
     * in several sections becomes one ({@link BodySections#whole}); arrays of a primitive type are boxed so that the
     * AMQP library can write them ({@link EncodableValues}).
     */
    static org.apache.qpid.proton.message.Message copy(org.apache.qpid.proton.message.Message original,
            Map<String, Object> added) {
        org.apache.qpid.proton.message.Message copy = org.apache.qpid.proton.message.Message.Factory.create();
        Header header = new Header();
        header.setDurable(true);
        if (original.getHeader() != null) {
            header.setPriority(original.getHeader().getPriority());
        }
        copy.setHeader(header);
        // Arrays of a primitive type boxed, which the AMQP library writes back as the same AMQP arrays
        // (EncodableValues).
        MessageAnnotations annotations = original.getMessageAnnotations();
        if (annotations != null && annotations.getValue() != null) {
            copy.setMessageAnnotations(new MessageAnnotations(EncodableValues.map(annotations.getValue())));
        }
        if (original.getProperties() != null) {
            Properties properties = new Properties(original.getProperties());
            // The connector addresses the copy to the dead-letter address; the original's is in x-original-address.
            properties.setTo(null);
            copy.setProperties(properties);
        }
        Map<String, Object> applicationProperties = new LinkedHashMap<>();
        if (original.getApplicationProperties() != null && original.getApplicationProperties().getValue() != null) {
            applicationProperties.putAll(EncodableValues.map(original.getApplicationProperties().getValue()));
        }
        applicationProperties.putAll(added);
        copy.setApplicationProperties(new ApplicationProperties(applicationProperties));
        Section body = BodySections.whole(original.getBody());
        if (body instanceof AmqpValue value) {
            body = new AmqpValue(EncodableValues.of(value.getValue()));
        } else if (body instanceof AmqpSequence sequence && sequence.getValue() != null) {
            body = new AmqpSequence(EncodableValues.list(sequence.getValue()));
        }
        copy.setBody(body);
        Footer footer = original.getFooter();
        copy.setFooter(footer == null || footer.getValue() == null ? footer
                : new Footer(EncodableValues.map(footer.getValue())));
        return copy;
    }

    /**
     * The original can be read but its copy cannot be encoded; it goes back to the broker, which dead-letters it as it
     * was sent once it has been delivered max-delivery-attempts times.
     */
    public static final class DeadLetterImpossibleException extends RuntimeException {

        DeadLetterImpossibleException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The dead-letter channel is closed for good ({@link #linkLost()}); the original goes back to the broker. */
    public static final class DeadLetterLinkLostException extends RuntimeException {

        DeadLetterLinkLostException(String message) {
            super(message, null, false, false);
        }
    }

    /** The dead-letter copy was not confirmed in time; the original goes back to the broker for another attempt. */
    public static final class DeadLetterUnconfirmedException extends RuntimeException {

        DeadLetterUnconfirmedException(String message) {
            super(message, null, false, false);
        }
    }
}
