package io.pointsinbox.support;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;

import io.pointsinbox.messaging.DeadLetters;
import io.pointsinbox.messaging.PointsGrantedConsumer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Both AMQP channels of the application reach the test broker through a {@link TcpProxy} that a test can cut,
 * freeze or silence. With the init argument {@code cut=true} the proxy refuses connections until restored, as a
 * broker that is away when the application starts. With {@code trust=<file of src/test/resources/tls>} the proxy
 * leads to the broker's TLS acceptor instead, passing the TLS bytes on untouched, and the application connects as a
 * user sets it up: {@code amqp-use-ssl=true} and {@code points.broker-trust-certificates} naming that PEM file. The
 * broker's certificate, for localhost and 127.0.0.1, is signed by {@code ca.pem}; {@code other-ca.pem} did not sign it.
 * With {@code other-host=true} as well, the proxy leads to the acceptor whose certificate, from the same CA, names
 * another host.
 */
public class BrokerProxy implements QuarkusTestResourceLifecycleManager {

    private static volatile TcpProxy proxy;
    private boolean cut;
    private String trust;
    private boolean otherHost;

    public static TcpProxy proxy() {
        return proxy;
    }

    @Override
    public void init(Map<String, String> initArgs) {
        cut = Boolean.parseBoolean(initArgs.getOrDefault("cut", "false"));
        trust = initArgs.get("trust");
        otherHost = Boolean.parseBoolean(initArgs.getOrDefault("other-host", "false"));
    }

    @Override
    public Map<String, String> start() {
        try {
            // The broker's port is looked up at each connection: the broker may start after this resource.
            IntSupplier port = trust == null ? ArtemisTestResource::port
                    : otherHost ? ArtemisTestResource::tlsOtherHostPort : ArtemisTestResource::tlsPort;
            proxy = new TcpProxy("127.0.0.1", port);
            if (cut) {
                proxy.cut();
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the broker proxy", e);
        }
        String port = String.valueOf(proxy.port());
        Map<String, String> config = new HashMap<>(Map.of(
                "mp.messaging.incoming." + PointsGrantedConsumer.CHANNEL + ".port", port,
                "mp.messaging.outgoing." + DeadLetters.CHANNEL + ".port", port));
        if (trust != null) {
            config.put("amqp-use-ssl", "true");
            config.put("points.broker-trust-certificates",
                    Path.of("src/test/resources/tls", trust).toAbsolutePath().toString());
        }
        return config;
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
