package io.pointsinbox.messaging;

import java.time.Duration;

import io.pointsinbox.config.Durations;

/**
 * Batched mode: the transaction that was to apply a delivery (its batch's, or its own when it was applied alone) ran
 * for the whole transaction timeout, and the transaction manager rolled it back there. The delivery fails and goes
 * back to the broker, named as rolled back at the timeout ({@link DeliveryFailedException#timedOut()}), with the
 * failure the statement or the commit then met as its cause.
 */
final class BatchTimedOut extends RuntimeException {

    BatchTimedOut(Duration transactionTimeout, Throwable failure) {
        super("the transaction applying it ran for the transaction timeout (" + Durations.readable(transactionTimeout)
                + ") and was rolled back", failure);
    }
}
