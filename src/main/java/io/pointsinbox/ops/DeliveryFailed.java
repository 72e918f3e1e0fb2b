package io.pointsinbox.ops;

/** A delivery's transaction rolled back for a reason other than a duplicate: the message will be redelivered. */
public record DeliveryFailed(String consumer) {
}
