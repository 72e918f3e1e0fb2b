package io.pointsinbox.messaging;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness is down once the inbound channel has stopped reconnecting while the broker accepts connections
 * ({@link BrokerConnectionWatch}): only a restart rebuilds the channel. A broker that is merely away keeps it up.
 */
@Liveness
@ApplicationScoped
public class ChannelLiveness implements HealthCheck {

    private final BrokerConnectionWatch watch;

    ChannelLiveness(BrokerConnectionWatch watch) {
        this.watch = watch;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("points-inbox broker channel");
        return watch.stuck()
                ? response.down().withData("channel", PointsGrantedConsumer.CHANNEL)
                        .withData("reason", "the broker accepts connections but the channel stopped reconnecting;"
                                + " a restart rebuilds it").build()
                : response.up().withData("channel", PointsGrantedConsumer.CHANNEL).build();
    }
}
