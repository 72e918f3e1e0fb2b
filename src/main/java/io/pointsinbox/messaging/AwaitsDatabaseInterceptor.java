package io.pointsinbox.messaging;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Runs outside the transaction interceptor ({@code PLATFORM_BEFORE + 200}), so that a delivery waiting for the
 * database holds no transaction and no connection: before its transaction while the gate is closed, and after a
 * failure until the probe has judged the database, so that its redelivery meets the closed gate.
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
        } catch (Exception | Error failure) {
            // Rolled back, holding no connection: the message goes back only once the gate reflects the database.
            consumption.awaitDatabaseVerdict(failure);
            throw failure;
        } finally {
            consumption.leaveHandler();
        }
    }
}
