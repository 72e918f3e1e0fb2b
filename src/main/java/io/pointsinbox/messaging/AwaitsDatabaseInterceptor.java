package io.pointsinbox.messaging;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Runs outside the transaction interceptor ({@code PLATFORM_BEFORE + 200}), so that a delivery waiting for the
 * database holds no transaction and no connection.
 */
@AwaitsDatabase
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
class AwaitsDatabaseInterceptor {

    private final ConsumptionSwitch consumption;

    AwaitsDatabaseInterceptor(ConsumptionSwitch consumption) {
        this.consumption = consumption;
    }

    @AroundInvoke
    Object awaitDatabase(InvocationContext invocation) throws Exception {
        consumption.enterHandler();
        try {
            return invocation.proceed();
        } finally {
            consumption.leaveHandler();
        }
    }
}
