package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.BrokerProxy;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The broker's TLS certificate signed by a CA that {@code points.broker-trust-certificates} does not name: no
 * connection is made, so nothing is consumed and readiness stays down, and the reason is in the log.
 */
@QuarkusTest
@TestProfile(BrokerTlsUntrustedTest.OtherCa.class)
class BrokerTlsUntrustedTest extends InboxTestBase {

    public static class OtherCa implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(BrokerProxy.class, Map.of("trust", "other-ca.pem")));
        }
    }

    /** What the cause of the failed handshake says. */
    protected String refusal() {
        return "unable to find valid certification path";
    }

    @Test
    void theBrokerCertificateIsRefused() throws Exception {
        try (LogCapture connector = LogCapture.of("io.smallrye.reactive.messaging.amqp")) {
            UUID id = UUID.randomUUID();
            try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
                sender.sendText(grant(id, 4432, 5));
            }
            await("the handshake refused, with the reason").atMost(Duration.ofSeconds(30))
                    .until(() -> connector.linesWithContext().stream().anyMatch(line -> refusedCertificate(line)));
            for (int probe = 0; probe < 4; probe++) {
                given().get("/q/health/ready").then().statusCode(503);
                Thread.sleep(500);
            }
            assertEquals(1, ArtemisTestResource.pending(ArtemisTestResource.ADDRESS), "the grant waits on the broker");
            assertEquals(0, Ledger.balance(CONSUMER, 4432), "nothing applied");
        } finally {
            ArtemisTestResource.purge(ArtemisTestResource.ADDRESS);
        }
    }

    private boolean refusedCertificate(LogCapture.Line line) {
        for (Throwable cause = line.thrown(); cause != null; cause = cause.getCause()) {
            if (String.valueOf(cause.getMessage()).contains(refusal())) {
                return true;
            }
        }
        return false;
    }
}
