package io.pointsinbox.messaging;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness is down once the inbound channel has stopped reconnecting while the broker accepts connections
 * ({@link BrokerConnectionWatch}), while its stream holds deliveries it has stopped handing over
 * ({@link StalledConsumption}), or once the dead-letter channel is closed for good ({@link DeadLetters#linkLost()}):
 * only a restart rebuilds any of them. A broker that is merely away keeps it up.
 */
@Liveness
@ApplicationScoped
public class ChannelLiveness implements HealthCheck {

    private final BrokerConnectionWatch watch;
    private final DeadLetters deadLetters;
    private final StalledConsumption stall;

    ChannelLiveness(BrokerConnectionWatch watch, DeadLetters deadLetters, StalledConsumption stall) {
        this.watch = watch;
        this.deadLetters = deadLetters;
        this.stall = stall;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("points-inbox broker channel");
        if (watch.stuck()) {
            return response.down().withData("channel", PointsGrantedConsumer.CHANNEL)
                    .withData("reason", "the broker accepts connections but the channel stopped reconnecting;"
                            + " a restart rebuilds it").build();
        }
        if (stall.stalled()) {
            return response.down().withData("channel", PointsGrantedConsumer.CHANNEL)
                    .withData("reason", "the channel holds deliveries it stopped handing to the service for "
                            + stall.timeout().toSeconds() + " s (POINTS_STALL_TIMEOUT); a restart rebuilds it")
                    .build();
        }
        if (deadLetters.linkLost()) {
            return response.down().withData("channel", DeadLetters.CHANNEL)
                    .withData("reason", "the AMQP connector closed the dead-letter channel for good (the broker"
                            + " refused its link, or its reconnection attempts are spent); a restart rebuilds it")
                    .build();
        }
        return response.up().withData("channel", PointsGrantedConsumer.CHANNEL).build();
    }
}
