package io.pointsinbox.messaging;

import java.time.Duration;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.MDC;

import io.pointsinbox.config.TransactionTimeout;
import io.smallrye.reactive.messaging.amqp.IncomingAmqpMetadata;

/**
 * Runs outside the transaction interceptor ({@code PLATFORM_BEFORE + 200}) and inside {@link AwaitsDatabase}: the
 * context the handler set covers the commit or the rollback, and is gone before the delivery waits for the database
 * or returns to the connector. A failure leaves as a {@link DeliveryFailedException} naming the message, which also
 * tells a transaction rolled back at the transaction manager's timeout by how long the delivery had run.
 */
@DeliveryLogContext
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 150)
class DeliveryLogContextInterceptor {

    private final Duration transactionTimeout;

    DeliveryLogContextInterceptor(@ConfigProperty(name = TransactionTimeout.PROPERTY,
            defaultValue = TransactionTimeout.DEFAULT) Duration transactionTimeout) {
        this.transactionTimeout = transactionTimeout;
    }

    @AroundInvoke
    Object clearAndName(InvocationContext invocation) throws Exception {
        long start = System.nanoTime();
        try {
            return invocation.proceed();
        } catch (Exception failure) { // a failed commit may be checked (RollbackException)
            Object messageId = MDC.get(DeliveryLogContext.MESSAGE_ID);
            if (messageId == null) {
                throw failure; // it failed before its message was known: nothing to name it by
            }
            throw new DeliveryFailedException(messageId, MDC.get(DeliveryLogContext.CONSUMER), attempt(invocation),
                    failure, Duration.ofNanos(System.nanoTime() - start), transactionTimeout);
        } finally {
            MDC.remove(DeliveryLogContext.CONSUMER);
            MDC.remove(DeliveryLogContext.MESSAGE_ID);
        }
    }

    /** The broker's attempt number: its delivery count (earlier failed attempts) plus one, or 0 when not AMQP. */
    private static long attempt(InvocationContext invocation) {
        for (Object parameter : invocation.getParameters()) {
            if (parameter instanceof IncomingAmqpMetadata amqp) {
                return amqp.getDeliveryCount() + 1L;
            }
        }
        return 0;
    }
}
