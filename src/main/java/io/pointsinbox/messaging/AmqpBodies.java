package io.pointsinbox.messaging;

import java.nio.charset.StandardCharsets;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Section;

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
        throw new InvalidEnvelopeException("body",
                "must be a JSON text value or a data section, got " + (body == null ? "none" : describe(body)));
    }

    private static String describe(Section body) {
        return body instanceof AmqpValue value && value.getValue() != null
                ? "a " + value.getValue().getClass().getSimpleName() + " value"
                : body.getClass().getSimpleName();
    }

    private static byte[] bytes(Binary binary) {
        byte[] bytes = new byte[binary.getLength()];
        System.arraycopy(binary.getArray(), binary.getArrayOffset(), bytes, 0, binary.getLength());
        return bytes;
    }
}
