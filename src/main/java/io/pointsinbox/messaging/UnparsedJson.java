package io.pointsinbox.messaging;

/**
 * What the AMQP connector is handed instead of a decoded value for a data section labelled {@code application/json}
 * (see {@link UnparsedJsonFactory}): the bytes are left as they are, and the consumer reads and validates them itself.
 */
public record UnparsedJson(int length) {
}
