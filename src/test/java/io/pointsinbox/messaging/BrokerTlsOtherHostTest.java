package io.pointsinbox.messaging;

import java.util.List;
import java.util.Map;

import io.pointsinbox.support.BrokerProxy;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The broker's TLS certificate signed by the trusted CA but for another host name: refused like one from an unknown
 * CA, since a certificate any tenant of that CA could obtain must not pass for the broker's.
 */
@QuarkusTest
@TestProfile(BrokerTlsOtherHostTest.OtherHost.class)
class BrokerTlsOtherHostTest extends BrokerTlsUntrustedTest {

    public static class OtherHost implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(BrokerProxy.class, Map.of("trust", "ca.pem", "other-host", "true")));
        }
    }

    @Override
    protected String refusal() {
        return "No subject alternative names matching IP address 127.0.0.1";
    }
}
