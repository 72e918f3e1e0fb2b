package io.pointsinbox.messaging;

import java.nio.charset.StandardCharsets;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Section;

import io.pointsinbox.contract.ContentCodings;
import io.pointsinbox.contract.InvalidEnvelopeException;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;

/** Reads the raw bytes of an AMQP body, a string value or a data section, as the sender wrote them. */
final class AmqpBodies {

    private AmqpBodies() {
    }

    static byte[] bytes(IncomingAmqpMetadata metadata) {
        Section body = metadata.getMessage().unwrap().getBody();
        if (body instanceof Data data) {
            return bytes(data.getValue());
        }
        if (body instanceof AmqpValue value && value.getValue() instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        if (body instanceof AmqpValue value && value.getValue() instanceof Binary binary) {
            return bytes(binary);
        }
        throw new InvalidEnvelopeException("body", "must be JSON in a data section or an AMQP string or binary value, "
                + "got " + describe(body));
    }

    /**
     * What to add to the reason of a body of bytes that could not be read when the sender declared a content coding
     * ({@link ContentCodings}): the bytes are read as the JSON itself, so a compressed body only fails as "not UTF-8"
     * or "malformed JSON".
     */
    static String encodingHint(InvalidEnvelopeException refusal, IncomingAmqpMetadata metadata) {
        Section body = metadata.getMessage().unwrap().getBody();
        boolean bytes = body instanceof Data || body instanceof AmqpValue value && value.getValue() instanceof Binary;
        String declared = metadata.getContentEncoding();
        if (!bytes || !"body".equals(refusal.field()) || !ContentCodings.transformsTheBody(declared)) {
            return "";
        }
        return " (content-encoding " + ContentCodings.notSupported(declared) + ")";
    }

    private static String describe(Section body) {
        if (body == null) {
            return "no body";
        }
        if (body instanceof AmqpSequence) {
            return "an amqp-sequence";
        }
        if (body instanceof AmqpValue value) {
            return "an AMQP " + AmqpTypes.name(value.getValue()) + " value";
        }
        return "a " + body.getType() + " section";
    }

    private static byte[] bytes(Binary binary) {
        byte[] bytes = new byte[binary.getLength()];
        System.arraycopy(binary.getArray(), binary.getArrayOffset(), bytes, 0, binary.getLength());
        return bytes;
    }
}
