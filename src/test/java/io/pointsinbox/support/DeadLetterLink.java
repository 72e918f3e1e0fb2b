package io.pointsinbox.support;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import io.pointsinbox.messaging.DeadLetters;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * Routes the application's dead-letter channel, and only it, through a {@link TcpProxy} to the test broker, so a
 * test can freeze that link while the inbound one keeps working. The dead-letter bound is short, to keep tests
 * quick.
 */
public class DeadLetterLink implements QuarkusTestResourceLifecycleManager {

    public static final String TIMEOUT = "2s";

    private static volatile TcpProxy proxy;

    public static TcpProxy proxy() {
        return proxy;
    }

    @Override
    public Map<String, String> start() {
        try {
            // The broker's port is looked up at each connection: the broker may start after this resource.
            proxy = new TcpProxy("127.0.0.1", ArtemisTestResource::port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the dead-letter link proxy", e);
        }
        String channel = "mp.messaging.outgoing." + DeadLetters.CHANNEL + ".";
        return Map.of(channel + "host", "127.0.0.1", channel + "port", String.valueOf(proxy.port()),
                "points.dead-letter-timeout", TIMEOUT);
    }

    @Override
    public void stop() {
        try {
            if (proxy != null) {
                proxy.close();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The per-message mode with the dead-letter link behind the proxy. */
    public static class PerMessage implements QuarkusTestProfile {

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(DeadLetterLink.class));
        }
    }

    /** The batched mode with the dead-letter link behind the proxy. */
    public static class Batched extends PerMessage {

        @Override
        public Map<String, String> getConfigOverrides() {
            return new BatchedMode().getConfigOverrides();
        }
    }
}
