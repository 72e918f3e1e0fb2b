package io.pointsinbox.support;

import java.util.Arrays;
import java.util.UUID;

import org.apache.qpid.proton.codec.WritableBuffer;
import org.apache.qpid.proton.message.Message;
import org.apache.qpid.proton.message.impl.MessageImpl;

/**
 * A message whose properties carry a message-id and whose body is the given bytes, sent as they are: what a client
 * that writes its own encoding can put on the wire, valid AMQP or not.
 */
public final class RawAmqpMessage extends MessageImpl {

    /** An amqp-value section whose value starts with 0xff, a type code AMQP does not define. */
    public static final byte[] UNKNOWN_TYPE_CODE = { 0x00, 0x53, 0x77, (byte) 0xff, 1, 2, 3 };
    /** An amqp-value section holding a string that declares 50 bytes and has 3. */
    public static final byte[] STRING_CUT_SHORT = { 0x00, 0x53, 0x77, (byte) 0xa1, 50, 'a', 'b', 'c' };

    /**
     * A footer (an empty map) and then a data section holding {@code {}}: sections in an order AMQP does not allow (the
     * footer comes last), as rhea 3 writes a footer with a body of several data sections.
     */
    public static final byte[] FOOTER_BEFORE_BODY = { 0x00, 0x53, 0x78, (byte) 0xc1, 0x01, 0x00, 0x00, 0x53, 0x75,
            (byte) 0xa0, 0x02, '{', '}' };

    /**
     * A header section (an empty list) after the properties, then a data section holding {@code {}}: the header comes
     * first in AMQP. The AMQP library would take the header for the body and drop the data section.
     */
    public static final byte[] HEADER_AFTER_PROPERTIES = { 0x00, 0x53, 0x70, 0x45, 0x00, 0x53, 0x75, (byte) 0xa0, 0x02,
            '{', '}' };

    /**
     * A data section holding {@code {}} and then application properties (an empty map), which AMQP puts before the
     * body. The AMQP library would drop them.
     */
    public static final byte[] APPLICATION_PROPERTIES_AFTER_BODY = { 0x00, 0x53, 0x75, (byte) 0xa0, 0x02, '{', '}',
            0x00, 0x53, 0x74, (byte) 0xc1, 0x01, 0x00 };

    /**
     * Two data sections holding {@code {} } and then message annotations (an empty map), which AMQP puts before the
     * body.
     */
    public static final byte[] ANNOTATIONS_AFTER_SECTIONS = { 0x00, 0x53, 0x75, (byte) 0xa0, 0x01, '{', 0x00, 0x53,
            0x75, (byte) 0xa0, 0x01, '}', 0x00, 0x53, 0x72, (byte) 0xc1, 0x01, 0x00 };

    /**
     * A described value that is not a section (a {@code received} delivery state, an empty list) where a section
     * belongs, then a data section holding {@code {}}.
     */
    public static final byte[] NOT_A_SECTION = { 0x00, 0x53, 0x23, 0x45, 0x00, 0x53, 0x75, (byte) 0xa0, 0x02, '{',
            '}' };

    private final byte[] body;

    @SuppressWarnings("deprecation") // Message.Factory cannot make a subclass; the constructor is still public
    public RawAmqpMessage(UUID messageId, byte[] body) {
        this.body = body.clone();
        setMessageId(messageId.toString());
    }

    @Override
    public int encode(WritableBuffer buffer) {
        int start = buffer.position();
        Message properties = Message.Factory.create();
        properties.setMessageId(getMessageId());
        byte[] head = new byte[1024];
        head = Arrays.copyOf(head, properties.encode(head, 0, head.length));
        buffer.put(head, 0, head.length);
        buffer.put(body, 0, body.length);
        return buffer.position() - start;
    }
}
