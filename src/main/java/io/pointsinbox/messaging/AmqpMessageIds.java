package io.pointsinbox.messaging;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import org.apache.qpid.proton.amqp.Binary;

import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.contract.InvalidEnvelopeException;
import io.pointsinbox.contract.Shown;

/**
 * The AMQP message-id as the text of the UUID it carries, for a message whose body has no {@code messageId}. AMQP
 * allows four types: a {@code uuid} and a {@code string} are read as they are, a {@code binary} as the UTF-8 text it
 * holds; a {@code ulong}, sixteen raw bytes (no byte order is agreed between platforms: .NET writes a GUID's first
 * fields little-endian) or a type AMQP does not allow there are refused with a reason naming what was sent.
 */
final class AmqpMessageIds {

    private static final int UUID_BYTES = 16;

    private AmqpMessageIds() {
    }

    static String text(Object id) {
        if (id == null) {
            return null;
        }
        if (id instanceof UUID uuid) {
            return uuid.toString();
        }
        if (id instanceof String string) {
            return string;
        }
        if (id instanceof Binary binary) {
            if (binary.getLength() == UUID_BYTES) {
                // Never a UUID's text (36 characters): a UUID's own bytes, whose order platforms disagree on.
                throw refused("16 raw bytes (" + Shown.messageId(binary) + "), which platforms order differently as a"
                        + " UUID: send an AMQP uuid or the UUID's text");
            }
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(binary.getArray(), binary.getArrayOffset(), binary.getLength()))
                        .toString();
            } catch (CharacterCodingException e) {
                throw refused("a binary of " + binary.getLength() + " bytes that is not text");
            }
        }
        String type = AmqpTypes.name(id);
        String value = String.valueOf(id);
        throw refused("the " + type + " " + EnvelopeReader.abbreviate(value));
    }

    private static InvalidEnvelopeException refused(String what) {
        return new InvalidEnvelopeException("message-id", EnvelopeReader.TRANSPORT_ID_RULE + ", got " + what);
    }
}
