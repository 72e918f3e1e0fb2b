package io.pointsinbox.support;

import java.io.IOException;
import java.util.Map;

import io.pointsinbox.messaging.DeadLetters;
import io.pointsinbox.messaging.PointsGrantedConsumer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Both AMQP channels of the application reach the test broker through a {@link TcpProxy} that a test can cut,
 * freeze or silence. With the init argument {@code cut=true} the proxy refuses connections until restored, as a
 * broker that is away when the application starts.
 */
public class BrokerProxy implements QuarkusTestResourceLifecycleManager {

    private static volatile TcpProxy proxy;
    private boolean cut;

    public static TcpProxy proxy() {
        return proxy;
    }

    @Override
    public void init(Map<String, String> initArgs) {
        cut = Boolean.parseBoolean(initArgs.getOrDefault("cut", "false"));
    }

    @Override
    public Map<String, String> start() {
        try {
            // The broker's port is looked up at each connection: the broker may start after this resource.
            proxy = new TcpProxy("127.0.0.1", ArtemisTestResource::port);
            if (cut) {
                proxy.cut();
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the broker proxy", e);
        }
        String port = String.valueOf(proxy.port());
        return Map.of("mp.messaging.incoming." + PointsGrantedConsumer.CHANNEL + ".port", port,
                "mp.messaging.outgoing." + DeadLetters.CHANNEL + ".port", port);
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
