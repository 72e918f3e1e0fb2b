package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.DeliveryAnnotations;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.codec.ReadableBuffer;
import org.apache.qpid.proton.message.Message;
import org.apache.qpid.proton.message.impl.MessageImpl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The section readers of {@link BodySections} on the AMQP library's decoder of this thread, as each event loop has
 * them: every order AMQP allows is read as before, every other order is a {@link BodySections.SectionOrderException}
 * naming both sections, and a body of several data sections is read whole.
 */
@SuppressWarnings("deprecation") // MessageImpl's constructor: what the connector's library uses, still public
class BodySectionsTest {

    /** The sections in AMQP's order, each encoded alone; the body is a data section. */
    private static final List<String> NAMES = List.of("header", "delivery-annotations", "message-annotations",
            "properties", "application-properties", "data", "footer");
    private static final List<byte[]> SECTIONS = List.of(
            section(m -> m.setHeader(new Header())),
            section(m -> m.setDeliveryAnnotations(new DeliveryAnnotations(Map.of(Symbol.valueOf("x-d"), 1)))),
            section(m -> m.setMessageAnnotations(new MessageAnnotations(Map.of(Symbol.valueOf("x-m"), 2)))),
            section(m -> m.setMessageId("id-1")),
            section(m -> m.setApplicationProperties(new ApplicationProperties(Map.of("a", 3)))),
            section(m -> m.setBody(new Data(new Binary("{}".getBytes(StandardCharsets.UTF_8))))),
            section(m -> m.setFooter(new Footer(Map.of(Symbol.valueOf("f"), 4)))));

    @BeforeAll
    static void install() throws IllegalAccessException {
        assertTrue(BodySections.installOnThisThread(), "the library's decoder is where it was");
    }

    @Test
    void everyOrderAmqpAllowsIsReadAsBefore() {
        // Each subset of the sections, in AMQP's order.
        for (int subset = 1; subset < 1 << SECTIONS.size(); subset++) {
            List<Integer> present = new ArrayList<>();
            for (int i = 0; i < SECTIONS.size(); i++) {
                if ((subset & 1 << i) != 0) {
                    present.add(i);
                }
            }
            MessageImpl message = decode(concat(present));
            String which = names(present);
            assertEquals(present.contains(0), message.getHeader() != null, which);
            assertEquals(present.contains(1), message.getDeliveryAnnotations() != null, which);
            assertEquals(present.contains(2), message.getMessageAnnotations() != null, which);
            assertEquals(present.contains(3), message.getProperties() != null, which);
            assertEquals(present.contains(4), message.getApplicationProperties() != null, which);
            assertEquals(present.contains(5), message.getBody() instanceof Data, which);
            assertEquals(present.contains(6), message.getFooter() != null, which);
            assertEquals(List.of(), BodySections.following(message.getBody()), which);
        }
    }

    @Test
    void everySectionAfterOneAmqpPutsAfterItIsRefusedNamingBoth() {
        for (int later = 0; later < SECTIONS.size(); later++) {
            for (int earlier = 0; earlier <= later; earlier++) {
                if (later == 5 && earlier == 5) {
                    continue; // two data sections: one body, read whole below
                }
                List<Integer> order = List.of(later, earlier);
                byte[] bytes = concat(order);
                BodySections.SectionOrderException refused = assertThrows(BodySections.SectionOrderException.class,
                        () -> decode(bytes), names(order));
                String expected = later == 6
                        ? "after the footer, which AMQP puts last"
                        : "%s section (code 0x%x) after the %s, which AMQP puts before it".formatted(NAMES.get(earlier),
                                0x70 + earlier, later == 5 ? "body" : NAMES.get(later) + " section");
                assertTrue(refused.getMessage().contains(expected), names(order) + ": " + refused.getMessage());
            }
        }
    }

    @Test
    void aSectionBeforeTheBodyAfterTwoBodySectionsIsRefused() {
        byte[] bytes = concat(List.of(3, 5, 5, 4));
        BodySections.SectionOrderException refused = assertThrows(BodySections.SectionOrderException.class,
                () -> decode(bytes));
        assertEquals("an application-properties section (code 0x74) after the body, which AMQP puts before it",
                refused.getMessage());
    }

    @Test
    void aBodyOfSeveralDataSectionsIsReadWholeWithItsFooter() {
        byte[] bytes = concat(concat(List.of(0, 3)), section(m -> m.setBody(data("{\"a\":"))),
                section(m -> m.setBody(data("1"))), section(m -> m.setBody(data("}"))), concat(List.of(6)));
        MessageImpl message = decode(bytes);
        assertEquals("{\"a\":1}", new String(BodySections.dataBytes(message.getBody(),
                BodySections.following(message.getBody())), StandardCharsets.UTF_8));
        assertEquals(Map.of(Symbol.valueOf("f"), 4), message.getFooter().getValue());
        assertEquals("id-1", message.getMessageId());

        byte[] sequences = concat(section(m -> m.setBody(new AmqpSequence(List.of(1, 2)))),
                section(m -> m.setBody(new AmqpSequence(List.of(3)))));
        Message read = decode(sequences);
        assertEquals(List.of(1, 2, 3), ((AmqpSequence) BodySections.whole(read.getBody())).getValue());

        byte[] mixed = concat(section(m -> m.setBody(data("{}"))), section(m -> m.setBody(new AmqpValue("x"))));
        Message kinds = decode(mixed);
        assertEquals("2 sections: data, amqp-value",
                BodySections.describe(kinds.getBody(), BodySections.following(kinds.getBody())));
        assertNull(BodySections.dataBytes(kinds.getBody(), BodySections.following(kinds.getBody())));
        assertThrows(BodySections.MixedSectionsException.class, () -> BodySections.whole(kinds.getBody()));
    }

    @Test
    void aDecodeBufferReadAgainForTheNextMessageStartsAMessage() {
        // A receiver may read each delivery through the same buffer object: a header at its start again begins a new
        // message, not a section after the last one's body.
        byte[] first = concat(List.of(3, 5));
        byte[] second = concat(List.of(0, 3, 5, 6));
        ByteBuffer bytes = ByteBuffer.allocate(second.length);
        ReadableBuffer buffer = ReadableBuffer.ByteBufferReader.wrap(bytes);
        bytes.put(first).flip();
        MessageImpl message = new MessageImpl();
        message.decode(buffer);
        assertInstanceOf(Data.class, message.getBody());
        bytes.clear();
        bytes.put(second).flip();
        message = new MessageImpl();
        message.decode(buffer);
        assertInstanceOf(Header.class, message.getHeader());
        assertInstanceOf(Data.class, message.getBody());
        assertInstanceOf(Footer.class, message.getFooter());
    }

    private static Data data(String text) {
        return new Data(new Binary(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static MessageImpl decode(byte[] bytes) {
        MessageImpl message = new MessageImpl();
        message.decode(bytes, 0, bytes.length);
        return message;
    }

    private static byte[] section(Consumer<MessageImpl> set) {
        MessageImpl message = new MessageImpl();
        set.accept(message);
        byte[] buffer = new byte[1024];
        int length = message.encode(buffer, 0, buffer.length);
        byte[] encoded = new byte[length];
        System.arraycopy(buffer, 0, encoded, 0, length);
        return encoded;
    }

    private static byte[] concat(List<Integer> order) {
        return concat(order.stream().map(SECTIONS::get).toArray(byte[][]::new));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static String names(List<Integer> order) {
        return order.stream().map(NAMES::get).toList().toString();
    }
}
