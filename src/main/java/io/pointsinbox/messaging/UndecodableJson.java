package io.pointsinbox.messaging;

/**
 * What the AMQP connector is handed instead of an exception when a data section labelled {@code application/json}
 * is not JSON (see {@link UndecodableJsonFactory}): the delivery then reaches the consumer, which reads the raw bytes
 * itself and dead-letters the message with its reason.
 */
public record UndecodableJson(int length, String error) {
}
