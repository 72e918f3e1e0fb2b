package io.pointsinbox.messaging;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.interceptor.InterceptorBinding;

/**
 * A delivery handler that puts its consumer and message id in the log context ({@code %X{consumer}},
 * {@code %X{messageId}}) as soon as it knows them. The interceptor clears them when the delivery leaves the handler,
 * outside its transaction, and names a failure after them ({@link DeliveryFailedException}), so that the error the
 * connector logs once the context is gone, a failed commit included, still says which message it was.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD, ElementType.TYPE })
public @interface DeliveryLogContext {

    /** The log context key of the consumer name. */
    String CONSUMER = "consumer";

    /** The log context key of the message id. */
    String MESSAGE_ID = "messageId";
}
