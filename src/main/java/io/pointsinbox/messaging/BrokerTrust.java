package io.pointsinbox.messaging;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import io.pointsinbox.config.PointsConfig;
import io.smallrye.reactive.messaging.ClientCustomizer;
import io.vertx.amqp.AmqpClientOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * Trusts the CA certificates of {@code points.broker-trust-certificates} for the service's two AMQP connections over
 * TLS ({@code amqp-use-ssl=true}), and nothing else: the rest of the JVM (a JWKS URL fetched over HTTPS, for one) keeps
 * the JVM's trust store. The broker's certificate must also name the host the service connects to ({@code amqp-host})
 * in its subject alternative names, which the AMQP client checks on every connection.
 * <p>
 * A client-options bean of the user's own ({@code amqp-client-options-name}) that sets trust options keeps them.
 */
@ApplicationScoped
public class BrokerTrust implements ClientCustomizer<AmqpClientOptions> {

    private static final Logger LOG = Logger.getLogger(BrokerTrust.class);

    private final PointsConfig points;

    BrokerTrust(PointsConfig points) {
        this.points = points;
    }

    @Override
    public AmqpClientOptions customize(String channel, Config channelConfig, AmqpClientOptions options) {
        points.brokerTrustCertificates().ifPresent(certificates -> {
            if (options.getTrustOptions() != null) {
                LOG.debugf("Channel %s: the client options bean's trust options are kept", channel);
                return;
            }
            options.setTrustOptions(new PemTrustOptions().addCertPath(certificates));
            LOG.debugf("Channel %s: the broker's certificate must chain to %s", channel, certificates);
        });
        return options;
    }
}
