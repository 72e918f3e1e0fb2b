package io.pointsinbox.messaging;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Readiness is down while consumption is paused for a database outage: the operator's cue to look at PostgreSQL. */
@Readiness
@ApplicationScoped
public class ConsumptionHealth implements HealthCheck {

    private final ConsumptionSwitch consumption;

    ConsumptionHealth(ConsumptionSwitch consumption) {
        this.consumption = consumption;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("points-inbox consumption");
        return consumption.pausedForOutage()
                ? response.down().withData("paused", true)
                        .withData("reason", "database unreachable; messages wait on the broker").build()
                : response.up().withData("paused", false).build();
    }
}
