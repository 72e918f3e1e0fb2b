package io.pointsinbox.messaging;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.Section;
import org.apache.qpid.proton.codec.DecodeException;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.codec.FastPathDescribedTypeConstructor;
import org.apache.qpid.proton.codec.ReadableBuffer;
import org.apache.qpid.proton.codec.TypeConstructor;
import org.apache.qpid.proton.codec.messaging.FastPathAmqpSequenceType;
import org.apache.qpid.proton.codec.messaging.FastPathAmqpValueType;
import org.apache.qpid.proton.codec.messaging.FastPathApplicationPropertiesType;
import org.apache.qpid.proton.codec.messaging.FastPathDataType;
import org.apache.qpid.proton.codec.messaging.FastPathDeliveryAnnotationsType;
import org.apache.qpid.proton.codec.messaging.FastPathFooterType;
import org.apache.qpid.proton.codec.messaging.FastPathHeaderType;
import org.apache.qpid.proton.codec.messaging.FastPathMessageAnnotationsType;
import org.apache.qpid.proton.codec.messaging.FastPathPropertiesType;
import org.apache.qpid.proton.message.impl.MessageImpl;
import org.jboss.logging.Logger;

import io.netty.util.concurrent.EventExecutor;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.vertx.core.Vertx;

/**
 * A body in several sections. AMQP allows one or more data sections (the body is their bytes end to end) or one or
 * more amqp-sequence sections, but the AMQP library under the connector (proton-j's {@code MessageImpl}) keeps the
 * first section and drops the others, and the footer after them, without a word: JSON split over two data sections
 * would be refused as malformed and its dead-letter copy would hold the first part only, and a first section that is
 * JSON by itself would be applied without the rest.
 * <p>
 * At start-up, before the channels connect, each event loop's message decoder (the library's, one per thread, read
 * through a private field registered for native images below) is given a reader for each section, wrapping the
 * library's own: the first body section of a message is read as before; a second one, in the same message, is read
 * with every section after it, kept here against the first ({@link #following}), and the footer, if one comes, handed
 * back to the library as the section it expects there. What a section holds is read as nested, so that a described
 * data or value inside annotations, a footer or a value is not taken for a section. A section out of AMQP's order
 * (header, delivery annotations, message annotations, properties, application properties, body, footer) is a decoding
 * error ({@link SectionOrderException}): the library would take the first section out of order for the body and drop
 * the real one, drop a section after the body, or, after the footer, read no body at all. {@link AmqpBodies} then
 * reads data sections end to end, and {@link DeadLetters} copies the whole body ({@link #whole}). Should a later
 * version of the library move its field, nothing is installed and a warning says that such bodies are read as their
 * first section (and sections out of order as the library reads them).
 */
@ApplicationScoped
@RegisterForReflection(targets = MessageImpl.class, classNames = BodySections.CODEC_PAIR, fields = true,
        methods = false)
public class BodySections {

    private static final Logger LOG = Logger.getLogger(BodySections.class);
    /** The library's per-thread encoder and decoder of messages. */
    static final String CODEC_PAIR = "org.apache.qpid.proton.message.impl.MessageImpl$EncoderDecoderPair";

    /** The sections after each multi-section body's first, for as long as the first is in use. */
    private static final Map<Section, List<Object>> FOLLOWING = Collections.synchronizedMap(new WeakHashMap<>());
    /** Whether any body in several sections has been read: until one is, a message's body costs no lookup. */
    private static volatile boolean seen;

    /** Before the messaging channels start (they do on this event too), so that a backlog's first delivery is read. */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, Vertx vertx) {
        int installed = 0;
        int loops = 0;
        for (EventExecutor loop : vertx.nettyEventLoopGroup()) {
            loops++;
            try {
                if (loop.submit(BodySections::installOnThisThread).get(10, TimeUnit.SECONDS)) {
                    installed++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Exception e) {
                LOG.debugf(e, "Could not install the body section readers on an event loop");
            }
        }
        if (installed < loops || loops == 0) {
            LOG.warnf("The AMQP library's message decoder could not be given the readers of bodies in several sections"
                    + " (%d of %d event loops): such a body is read as its first section, as the library does",
                    installed, loops);
        } else {
            LOG.debugf("Bodies in several sections are read whole on %d event loops", installed);
        }
    }

    /**
     * The sections after a body's first, in order (further body sections, and anything else the message held before
     * its footer), or an empty list if the body was one section.
     */
    static List<Object> following(Section first) {
        if (!seen || first == null) {
            return List.of();
        }
        List<Object> following = FOLLOWING.get(first);
        return following == null ? List.of() : following;
    }

    /**
     * The whole body as one section: data sections end to end in one data section, amqp-sequence sections' elements in
     * one amqp-sequence (the same body, as AMQP reads them), a single section as it is.
     *
     * @throws MixedSectionsException for sections of different kinds, which AMQP does not allow in one body and no
     *             single section can hold
     */
    static Section whole(Section first) {
        List<Object> following = following(first);
        if (following.isEmpty()) {
            return first;
        }
        byte[] data = dataBytes(first, following);
        if (data != null) {
            return new Data(new Binary(data));
        }
        if (first instanceof AmqpSequence sequence && following.stream().allMatch(AmqpSequence.class::isInstance)) {
            List<Object> elements = new ArrayList<>(sequence.getValue());
            for (Object next : following) {
                elements.addAll(((AmqpSequence) next).getValue());
            }
            return new AmqpSequence(elements);
        }
        throw new MixedSectionsException("its body is " + describe(first, following)
                + ", which AMQP does not allow in one message and no single section can hold");
    }

    /** A body of sections of different kinds: no copy of it can be written. */
    static final class MixedSectionsException extends IllegalArgumentException {
        MixedSectionsException(String message) {
            super(message);
        }
    }

    /**
     * A message whose sections are not in AMQP's order: a decoding error of the AMQP library's kind, worded here (no
     * sender's text in it).
     */
    static final class SectionOrderException extends DecodeException {
        SectionOrderException(String message) {
            super(message);
        }
    }

    /** The bytes of data sections end to end, or null if the body is not data sections only. */
    static byte[] dataBytes(Section body, List<Object> following) {
        if (!(body instanceof Data first) || !following.stream().allMatch(Data.class::isInstance)) {
            return null;
        }
        int length = first.getValue() == null ? 0 : first.getValue().getLength();
        for (Object next : following) {
            Binary binary = ((Data) next).getValue();
            length += binary == null ? 0 : binary.getLength();
        }
        byte[] bytes = new byte[length];
        int at = copy(first.getValue(), bytes, 0);
        for (Object next : following) {
            at = copy(((Data) next).getValue(), bytes, at);
        }
        return bytes;
    }

    /** "3 sections: data, data, amqp-value". */
    static String describe(Section first, List<Object> following) {
        StringBuilder text = new StringBuilder().append(following.size() + 1).append(" sections: ").append(kind(first));
        for (Object next : following) {
            text.append(", ").append(kind(next));
        }
        return text.toString();
    }

    private static String kind(Object section) {
        if (section instanceof Data) {
            return "data";
        }
        if (section instanceof AmqpSequence) {
            return "amqp-sequence";
        }
        if (section instanceof AmqpValue) {
            return "amqp-value";
        }
        return section == null ? "null" : section instanceof Section s ? s.getType().toString()
                : "an AMQP " + AmqpTypes.name(section);
    }

    private static int copy(Binary binary, byte[] into, int at) {
        if (binary == null) {
            return at;
        }
        System.arraycopy(binary.getArray(), binary.getArrayOffset(), into, at, binary.getLength());
        return at + binary.getLength();
    }

    /** Gives the calling thread's message decoder the readers, as {@link #onStart} does on each event loop. */
    static boolean installOnThisThread() throws IllegalAccessException {
        Field codec = ConnectorLinks.field(MessageImpl.class, "tlsCodec");
        Field decoderField = ConnectorLinks.field(CODEC_PAIR, "decoder");
        Field encoderField = ConnectorLinks.field(CODEC_PAIR, "encoder");
        return codec != null && decoderField != null && encoderField != null
                && install(codec, decoderField, encoderField);
    }

    /** Gives this thread's message decoder the readers; false if the library's fields are not what they were. */
    private static boolean install(Field codec, Field decoderField, Field encoderField) throws IllegalAccessException {
        Object pair = ((ThreadLocal<?>) codec.get(null)).get();
        if (!(decoderField.get(pair) instanceof DecoderImpl decoder)
                || !(encoderField.get(pair) instanceof EncoderImpl encoder)) {
            return false;
        }
        Message message = new Message();
        // The sections before the body: they hold values, not sections, and come once each, in this order.
        register(decoder, new SectionReader(decoder, new FastPathHeaderType(encoder), message, 0x70, "header"),
                "amqp:header:list");
        register(decoder, new SectionReader(decoder, new FastPathDeliveryAnnotationsType(encoder), message, 0x71,
                "delivery-annotations"), "amqp:delivery-annotations:map");
        register(decoder, new SectionReader(decoder, new FastPathMessageAnnotationsType(encoder), message, 0x72,
                "message-annotations"), "amqp:message-annotations:map");
        register(decoder, new SectionReader(decoder, new FastPathPropertiesType(encoder), message, 0x73, "properties"),
                "amqp:properties:list");
        register(decoder, new SectionReader(decoder, new FastPathApplicationPropertiesType(encoder), message, 0x74,
                "application-properties"), "amqp:application-properties:map");
        register(decoder, new Reader(decoder, new FastPathDataType(encoder), message, 0x75, "data"),
                "amqp:data:binary");
        register(decoder, new Reader(decoder, new FastPathAmqpSequenceType(encoder), message, 0x76, "amqp-sequence"),
                "amqp:amqp-sequence:list");
        register(decoder, new Reader(decoder, new FastPathAmqpValueType(encoder), message, 0x77, "amqp-value"),
                "amqp:value:*");
        register(decoder, new FooterReader(decoder, new FastPathFooterType(encoder), message), "amqp:footer:map");
        return true;
    }

    private static void register(DecoderImpl decoder, SectionReader reader, String symbol) {
        decoder.register(UnsignedLong.valueOf(reader.code), reader);
        decoder.register(Symbol.valueOf(symbol), reader);
    }

    /**
     * Throws if a section's constructor comes next (0x00, the small ulong 0x53, a section's code): a footer read inside
     * a value is followed by the value's next element, not by a section.
     */
    private static void refuseSectionAfterFooter(ReadableBuffer buffer) {
        if (buffer != null && buffer.remaining() >= 3) {
            int at = buffer.position();
            byte code = buffer.get(at + 2);
            if (buffer.get(at) == 0x00 && buffer.get(at + 1) == 0x53 && code >= 0x70 && code <= 0x78) {
                throw new SectionOrderException("a section (code 0x" + Integer.toHexString(code)
                        + ") after the footer, which AMQP puts last");
            }
        }
    }

    /** What one thread's decoder knows of the message it is reading. */
    private static final class Message {
        /**
         * The buffer of the message whose section was read last, where that section ended, and its reader. A section in
         * another buffer, or in the same one before that end, starts a message.
         */
        ReadableBuffer buffer;
        int end;
        SectionReader last;
        /** The message's first body section, once read. */
        Section first;
        /** Reading the sections after a second body section, for the first. */
        boolean following;
        /**
         * Reading inside a section: described values in a value, in annotations or in a footer are not sections.
         */
        boolean nested;
    }

    /**
     * A section's reader in place of the library's, which it calls; one thread's decoder, one message at a time. What
     * the section holds is read as nested: a described type in it is a value, not a section of the message. A section
     * before the body that comes after the body or after a section AMQP puts after it (the library would take it for
     * the body and drop the body, or drop it) is a decoding error.
     */
    private static class SectionReader implements FastPathDescribedTypeConstructor<Object> {
        final DecoderImpl decoder;
        final TypeConstructor<?> library;
        final Message message;
        final int code;
        final String name;

        SectionReader(DecoderImpl decoder, TypeConstructor<?> library, Message message, int code, String name) {
            this.decoder = decoder;
            this.library = library;
            this.message = message;
            this.code = code;
            this.name = name;
        }

        @Override
        public final Object readValue() {
            if (message.nested) {
                return library.readValue();
            }
            ReadableBuffer buffer = decoder.getBuffer();
            if (buffer == null || buffer != message.buffer || buffer.position() < message.end) {
                message.buffer = buffer;
                message.last = null;
                message.first = null;
            } else if (message.last != null && code <= message.last.code && !(isBody() && message.last.isBody())) {
                throw outOfOrder(message.last);
            }
            Object section;
            message.nested = true;
            try {
                section = library.readValue();
            } finally {
                message.nested = false;
            }
            message.last = this;
            message.end = buffer == null ? 0 : buffer.position();
            return read(section);
        }

        /** A body section: data, amqp-sequence or amqp-value. */
        final boolean isBody() {
            return code >= 0x75 && code <= 0x77;
        }

        /** This section, read after one AMQP puts after it ("a header section (code 0x70) after the body, ..."). */
        final SectionOrderException outOfOrder(SectionReader before) {
            return new SectionOrderException(String.format("%s %s section (code 0x%x) after the %s, which AMQP puts"
                    + " before it", name.startsWith("a") ? "an" : "a", name, code,
                    before.isBody() ? "body" : before.name + " section"));
        }

        /** What the message's decoder gets for this section, read at the message's top level. */
        Object read(Object section) {
            return section;
        }

        @Override
        public void skipValue() {
            library.skipValue();
        }

        @Override
        public boolean encodesJavaPrimitive() {
            return false;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Class<Object> getTypeClass() {
            return (Class<Object>) library.getTypeClass();
        }
    }

    /**
     * The footer's reader: the library's, refusing a message with a section after its footer (AMQP puts the footer
     * last; rhea 3, for one, writes it before a body of several data sections). The library would stop at the footer
     * and read no body at all, so the message's body would be lost with its dead-letter copy; refused here, it is an
     * undecodable delivery ({@link UndecodableDeliveries}), left to the broker as it was sent.
     */
    private static final class FooterReader extends SectionReader {

        FooterReader(DecoderImpl decoder, TypeConstructor<?> library, Message message) {
            super(decoder, library, message, 0x78, "footer");
        }

        @Override
        Object read(Object footer) {
            refuseSectionAfterFooter(decoder.getBuffer());
            return footer;
        }
    }

    /** A body section's reader: the library's, plus the sections after a second body section. */
    private static final class Reader extends SectionReader {

        Reader(DecoderImpl decoder, TypeConstructor<?> library, Message message, int code, String name) {
            super(decoder, library, message, code, name);
        }

        @Override
        Object read(Object section) {
            if (message.first == null) {
                message.first = (Section) section;
                return section;
            }
            if (message.following) {
                return section;
            }
            ReadableBuffer buffer = decoder.getBuffer();
            // A second body section: the library reads one section after the body, and keeps it only if it is the
            // footer. Read the rest here, each section checked in order as the library's were, and hand it the footer.
            List<Object> following = new ArrayList<>();
            following.add(section);
            Object handedBack = section;
            message.following = true;
            try {
                while (buffer.hasRemaining()) {
                    Object next = decoder.readObject();
                    if (next instanceof Footer) {
                        handedBack = next;
                        break;
                    }
                    following.add(next);
                }
            } finally {
                message.following = false;
            }
            FOLLOWING.put(message.first, Collections.unmodifiableList(following));
            seen = true;
            message.buffer = null;
            message.first = null;
            return handedBack;
        }
    }
}
