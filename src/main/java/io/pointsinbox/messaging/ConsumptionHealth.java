package io.pointsinbox.messaging;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness is down while consumption is paused for a database outage, the operator's cue to look at PostgreSQL, and
 * while the broker refuses the receiver link ({@link RefusedReceiverLink}), the cue to look at the broker: in both
 * cases the connection is there and nothing is consumed.
 */
@Readiness
@ApplicationScoped
public class ConsumptionHealth implements HealthCheck {

    private final ConsumptionSwitch consumption;
    private final RefusedReceiverLink link;

    ConsumptionHealth(ConsumptionSwitch consumption, RefusedReceiverLink link) {
        this.consumption = consumption;
        this.link = link;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("points-inbox consumption");
        if (consumption.pausedForOutage()) {
            return response.down().withData("paused", true)
                    .withData("reason", "database unreachable; messages wait on the broker").build();
        }
        Optional<String> refusal = link.refusal();
        return refusal.isPresent()
                ? response.down().withData("paused", false).withData("reason", refusal.get()).build()
                : response.up().withData("paused", false).build();
    }
}
