package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.BrokerProxy;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The broker reached over TLS, its CA given as a PEM file in {@code points.broker-trust-certificates}: both channels
 * connect (the only port they are given is the broker's TLS acceptor), messages are applied once and poison is
 * dead-lettered over the same kind of connection.
 */
@QuarkusTest
@TestProfile(BrokerTlsTest.TrustedCa.class)
class BrokerTlsTest extends InboxTestBase {

    public static class TrustedCa implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(BrokerProxy.class, Map.of("trust", "ca.pem")));
        }
    }

    @Test
    void consumesAndDeadLettersOverTlsTrustingTheGivenCa() throws Exception {
        await("ready over TLS").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);
        MetricsDelta counted = MetricsDelta.start();
        UUID id = UUID.randomUUID();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 4431, 12));
            sender.sendText(grant(id, 4431, 12));
            sender.sendText("{not json");
        }
        awaitCounter("duplicate", 1, counted);
        awaitCounter("rejected", 1, counted);
        assertEquals(12, Ledger.balance(CONSUMER, 4431), "applied once");
        List<Message> copies = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER, 1, Duration.ofSeconds(20));
        assertEquals(1, copies.size(), "the poison message's copy, sent over the TLS connection");
        String reason = String.valueOf(copies.get(0).getApplicationProperties().getValue().get(DeadLetters.REASON));
        assertTrue(reason.startsWith("body: malformed JSON"), reason);
    }
}
