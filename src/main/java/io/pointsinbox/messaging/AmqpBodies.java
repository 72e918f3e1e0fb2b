package io.pointsinbox.messaging;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Section;

import io.pointsinbox.contract.ContentCodings;
import io.pointsinbox.contract.InvalidEnvelopeException;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;

/** Reads the raw bytes of an AMQP body, a string value or data sections, as the sender wrote them. */
final class AmqpBodies {

    private AmqpBodies() {
    }

    /**
     * The body's bytes. A body that declares a content coding ({@link ContentCodings}: gzip, deflate, ...) is refused
     * whatever its bytes, as over HTTP: read as plain JSON, a body labelled compressed would be applied by this
     * service and unreadable to every reader that honours the label.
     */
    static byte[] bytes(IncomingAmqpMetadata metadata) {
        Section body = metadata.getMessage().unwrap().getBody();
        List<Object> following = BodySections.following(body);
        byte[] bytes;
        if (!following.isEmpty()) {
            bytes = BodySections.dataBytes(body, following);
            if (bytes == null) {
                throw new InvalidEnvelopeException("body", "must be JSON in data sections or an AMQP string or binary "
                        + "value, got " + BodySections.describe(body, following));
            }
        } else if (body instanceof Data data) {
            bytes = bytes(data.getValue());
        } else if (body instanceof AmqpValue value && value.getValue() instanceof String text) {
            bytes = text.getBytes(StandardCharsets.UTF_8);
        } else if (body instanceof AmqpValue value && value.getValue() instanceof Binary binary) {
            bytes = bytes(binary);
        } else {
            throw new InvalidEnvelopeException("body", "must be JSON in data sections or an AMQP string or binary "
                    + "value, got " + describe(body));
        }
        String declared = metadata.getContentEncoding();
        if (ContentCodings.transformsTheBody(declared)) {
            throw new InvalidEnvelopeException("body", "content-encoding " + ContentCodings.notSupported(declared));
        }
        return bytes;
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
