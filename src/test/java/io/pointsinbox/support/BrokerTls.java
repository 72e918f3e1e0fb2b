package io.pointsinbox.support;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import io.pointsinbox.messaging.DeadLetters;
import io.pointsinbox.messaging.PointsGrantedConsumer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Both AMQP channels of the application connect to the test broker's TLS acceptor, as a user sets it up:
 * {@code amqp-use-ssl=true} and {@code points.broker-trust-certificates} naming the PEM file of the init argument
 * {@code trust} (a file of src/test/resources/tls). The broker's certificate, for localhost and 127.0.0.1, is signed
 * by {@code ca.pem}; {@code other-ca.pem} did not sign it. The connections go through a {@link TcpProxy}, which
 * passes the TLS bytes on untouched, because the broker's port is known only once it has started.
 */
public class BrokerTls implements QuarkusTestResourceLifecycleManager {

    private TcpProxy proxy;
    private String trust;

    @Override
    public void init(Map<String, String> initArgs) {
        trust = initArgs.getOrDefault("trust", "ca.pem");
    }

    @Override
    public Map<String, String> start() {
        try {
            proxy = new TcpProxy("127.0.0.1", ArtemisTestResource::tlsPort);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the proxy to the broker's TLS port", e);
        }
        String port = String.valueOf(proxy.port());
        return Map.of("mp.messaging.incoming." + PointsGrantedConsumer.CHANNEL + ".port", port,
                "mp.messaging.outgoing." + DeadLetters.CHANNEL + ".port", port,
                "amqp-use-ssl", "true",
                "points.broker-trust-certificates", Path.of("src/test/resources/tls", trust).toAbsolutePath()
                        .toString());
    }

    @Override
    public void stop() {
        try {
            proxy.close();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
