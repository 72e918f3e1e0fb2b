package io.pointsinbox.messaging;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import io.smallrye.reactive.messaging.ClientCustomizer;
import io.vertx.amqp.AmqpClient;
import io.vertx.amqp.AmqpClientOptions;
import io.vertx.amqp.AmqpConnection;
import io.vertx.core.Vertx;

/**
 * Opens, on demand, one AMQP connection of its own to the broker with the inbound channel's own client options (host,
 * port, credentials, TLS), and closes it at once: whether the broker accepts the service now. It keeps a reference to
 * the options the connector builds for the inbound channel, as every client customizer sees them, and changes nothing.
 */
@ApplicationScoped
public class BrokerProbe implements ClientCustomizer<AmqpClientOptions> {

    private static final Logger LOG = Logger.getLogger(BrokerProbe.class);

    private final Vertx vertx;
    private volatile AmqpClientOptions inbound;

    BrokerProbe(Vertx vertx) {
        this.vertx = vertx;
    }

    @Override
    public AmqpClientOptions customize(String channel, Config channelConfig, AmqpClientOptions options) {
        if (PointsGrantedConsumer.CHANNEL.equals(channel)) {
            inbound = options;
        }
        return options;
    }

    /**
     * Whether a connection with the inbound channel's options opens within {@code timeout}; blocks that long at most.
     * False before the connector has built those options.
     */
    public boolean answers(Duration timeout) {
        AmqpClientOptions options = inbound;
        if (options == null) {
            return false;
        }
        AmqpClientOptions once = new AmqpClientOptions(options).setReconnectAttempts(0)
                .setConnectTimeout((int) timeout.toMillis()).setContainerId(null);
        AmqpClient client = AmqpClient.create(vertx, once);
        try {
            AmqpConnection connection = client.connect().toCompletionStage().toCompletableFuture()
                    .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
            connection.close();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            LOG.debugf("The AMQP broker at %s:%d does not accept a connection: %s", once.getHost(), once.getPort(),
                    e.getMessage());
            return false;
        } finally {
            client.close();
        }
    }
}
