package io.pointsinbox.messaging;

/**
 * A delivery whose processing failed, named: the message id, the consumer and the attempt, so that the connector's
 * error line ({@code SRMSG00200 ... has thrown an exception}) says which message was rolled back and handed back to
 * the broker, and why, with the failure as its cause. Only the text is new: the transaction has already been rolled
 * back for the failure it wraps.
 */
final class DeliveryFailedException extends RuntimeException {

    DeliveryFailedException(Object messageId, Object consumer, long attempt, Exception failure) {
        super("Message " + messageId + " for consumer " + consumer + " failed on delivery attempt " + attempt
                + ", rolled back and handed back to the broker: " + why(failure), failure, false, false);
    }

    /** The failure, and its root cause when the failure's own text does not say it (a failed commit's does not). */
    private static String why(Exception failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = String.valueOf(failure);
        if (root == failure || root.getMessage() != null && text.contains(root.getMessage())) {
            return text;
        }
        return text + " (cause: " + root + ")";
    }
}
