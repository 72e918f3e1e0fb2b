package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.junit.jupiter.api.Test;

import io.pointsinbox.contract.InvalidEnvelopeException;

/** Each type the AMQP message-id can arrive in, read as the text of a UUID or refused by name. */
class AmqpMessageIdsTest {

    private static final UUID ID = UUID.fromString("9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad");

    @Test
    void aUuidAStringAndTheTextOfABinaryAreRead() {
        assertNull(AmqpMessageIds.text(null), "no message-id");
        assertEquals(ID.toString(), AmqpMessageIds.text(ID));
        assertEquals("not checked here", AmqpMessageIds.text("not checked here"), "a string is judged by the reader");
        byte[] text = ID.toString().getBytes(StandardCharsets.UTF_8);
        byte[] framed = new byte[text.length + 4];
        System.arraycopy(text, 0, framed, 2, text.length);
        assertEquals(ID.toString(), AmqpMessageIds.text(new Binary(framed, 2, text.length)),
                "only the binary's own bytes, not the array around them");
    }

    @Test
    void anyOtherIdIsRefusedNamingWhatWasSent() {
        assertEquals("message-id: the body has no messageId, so the AMQP message-id must be a UUID (an AMQP uuid, or"
                + " a string holding one), got the ulong 42", refused(UnsignedLong.valueOf(42)));
        assertEquals("got a binary of 2 bytes that is not text", tail(refused(new Binary(new byte[] { (byte) 0xa3,
                0x01 }))));
        assertEquals("got the symbol x", tail(refused(Symbol.valueOf("x"))), "not an AMQP message-id type");
        byte[] framed = new byte[20];
        System.arraycopy("0123456789abcdef".getBytes(StandardCharsets.US_ASCII), 0, framed, 3, 16);
        assertEquals("got 16 raw bytes (binary 0x30313233343536373839616263646566), which platforms order differently"
                + " as a UUID: send an AMQP uuid or the UUID's text", tail(refused(new Binary(framed, 3, 16))),
                "sixteen bytes are a UUID's own bytes, never its text, even when they happen to be text");
        assertEquals("got a binary of 17 bytes that is not text", tail(refused(new Binary(new byte[] { (byte) 0xa3,
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 }))));
        assertEquals("got the int 5", tail(refused(5)));
        assertEquals("message-id", assertThrows(InvalidEnvelopeException.class,
                () -> AmqpMessageIds.text(UnsignedLong.valueOf(1))).field(), "the field a reason names");
    }

    private static String refused(Object id) {
        return assertThrows(InvalidEnvelopeException.class, () -> AmqpMessageIds.text(id)).getMessage();
    }

    private static String tail(String reason) {
        return reason.substring(reason.indexOf("got "));
    }
}
