package io.pointsinbox.messaging;

import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import io.pointsinbox.config.PointsConfig;
import io.smallrye.reactive.messaging.ClientCustomizer;
import io.vertx.amqp.AmqpClientOptions;

/**
 * Gives every AMQP connection of the service (the inbound channel and the dead-letter channel) an idle timeout, so
 * that a broker that falls silent is noticed. The AMQP client asks the broker, in its open frame, to send a frame at
 * least every {@code points.broker-idle-timeout} (an empty one when it has nothing else to say; every AMQP 1.0 broker
 * honours the request), and closes the connection when nothing has arrived for that long. The connector then
 * reconnects as after any lost connection, readiness goes down meanwhile, and the deliveries the old connection held
 * go back to the queue on the broker's side.
 * <p>
 * Without it the AMQP client asks for nothing and a connection whose packets stop arriving (the broker's node lost,
 * a network partition, a broker moved to another address behind a dead path) stays open on the service's side with
 * readiness up and nothing consumed, until the kernel gives up retransmitting the empty frames the client still sends
 * on the broker's behalf: about 15 minutes with Linux's defaults.
 * <p>
 * The idle timeout starts with the open connection. A connection whose opening the broker never answers is closed
 * when nothing has arrived on its socket for twice as long, so that the connector tries again instead of waiting on
 * it for good.
 * <p>
 * A client-options bean of the user's own ({@code amqp-client-options-name}) that sets a heartbeat keeps it.
 */
@ApplicationScoped
public class BrokerIdleTimeout implements ClientCustomizer<AmqpClientOptions> {

    private static final Logger LOG = Logger.getLogger(BrokerIdleTimeout.class);

    private final PointsConfig points;

    BrokerIdleTimeout(PointsConfig points) {
        this.points = points;
    }

    @Override
    public AmqpClientOptions customize(String channel, Config channelConfig, AmqpClientOptions options) {
        long idleMillis = points.brokerIdleTimeout().toMillis();
        if (idleMillis == 0 || options.getHeartbeat() > 0) {
            return options;
        }
        // The client's heartbeat is half its idle timeout: it announces 2 x heartbeat to the broker, and closes the
        // connection after 2 x heartbeat without a frame.
        options.setHeartbeat((int) (idleMillis / 2));
        // The heartbeat counts only once the connection is open. A connection whose opening the broker never answers
        // (a broker hung, or gone behind a proxy that still accepts connections) would hold the connector's
        // reconnection until the watch takes liveness down and the pod is restarted: nothing arriving on the socket
        // for twice as long closes it, and the connector tries again. On an open connection the heartbeat's check,
        // which may come up to one heartbeat late, closes it first and names its cause.
        options.setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
        options.setReadIdleTimeout((int) Math.min(Integer.MAX_VALUE, idleMillis * 2));
        LOG.debugf("Channel %s: the AMQP connection is closed after %d ms without a frame from the broker", channel,
                idleMillis);
        return options;
    }
}
