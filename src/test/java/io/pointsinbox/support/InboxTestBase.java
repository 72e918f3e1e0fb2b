package io.pointsinbox.support;

import jakarta.inject.Inject;

/** For tests running inside the application ({@code @QuarkusTest}): adds the failure-injection hook. */
public abstract class InboxTestBase extends BrokerTestBase {

    @Inject
    protected FailureInjector failures;

    @Override
    protected void beforeReset() {
        failures.reset();
    }
}
