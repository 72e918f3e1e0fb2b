package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.BatchedMode;
import io.pointsinbox.support.BrokerProxy;
import io.pointsinbox.support.FailureInjector;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.ParallelSenders;
import io.pointsinbox.support.Workload;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * A broker that falls silent without closing anything: its node lost, a network partition, a broker hung. No
 * close or reset ever arrives, so only the connection's idle timeout ({@code points.broker-idle-timeout}, 2 s here)
 * tells the service that it is talking to nobody. It must leave that connection, take readiness down while it has no
 * other, consume again over a new one, and apply what the silent connection held exactly once.
 */
@QuarkusTest
@TestProfile(SilentBrokerTest.BrokerBehindProxy.class)
class SilentBrokerTest extends InboxTestBase {

    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2);

    public static class BrokerBehindProxy implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("points.broker-idle-timeout", IDLE_TIMEOUT.toSeconds() + "s");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(BrokerProxy.class));
        }
    }

    /** The same, in batched mode. */
    public static class BrokerBehindProxyBatched extends BrokerBehindProxy {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> overrides = new HashMap<>(super.getConfigOverrides());
            overrides.putAll(new BatchedMode().getConfigOverrides());
            return overrides;
        }
    }

    @AfterEach
    void mendTheLink() {
        BrokerProxy.proxy().thaw();
    }

    /**
     * The connection goes silent for good while a delivery has committed but not yet been acknowledged, and while
     * four senders race the same grants to the broker. The acknowledgement is lost with the connection, so that
     * delivery comes back over the new one and is absorbed as a duplicate.
     */
    @Test
    void aConnectionThatFallsSilentIsLeftAndWhatItHeldIsAppliedOnceOverANewOne() throws Exception {
        awaitConsuming();
        Workload workload = new Workload(300, 0.2, 31_000, 20, 11);
        UUID held = UUID.randomUUID();
        MetricsDelta counted = MetricsDelta.start();
        int connectionsBefore = BrokerProxy.proxy().acceptedConnections();

        FailureInjector.Hold hold = failures.hold(held);
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(held, 31_900, 9));
        }
        assertTrue(hold.awaitEntered(30), "the first delivery is inside its transaction");
        BrokerProxy.proxy().silenceOpenConnections();
        long silencedAt = System.nanoTime();
        hold.release();
        ParallelSenders.sameMessagesFromEach(workload.messages(), 4);

        await("a new connection to the broker").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> BrokerProxy.proxy().acceptedConnections() > connectionsBefore);
        Duration leftAfter = Duration.ofNanos(System.nanoTime() - silencedAt);
        // The idle timeout plus the reconnect interval (1 s), with room for a slow machine; the kernel alone would
        // take about 15 minutes, and this broker's own idle timeout a minute.
        assertTrue(leftAfter.compareTo(IDLE_TIMEOUT.multipliedBy(5)) < 0,
                "the silent connection was left after " + leftAfter);

        await("everything applied over the new connection").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique() + 1
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        workload.expectedBalances().forEach((user, expected) -> assertEquals(expected, Ledger.balance(CONSUMER, user),
                "balance of user " + user));
        assertEquals(9, Ledger.balance(CONSUMER, 31_900), "the delivery committed before the silence, applied once");
        assertEquals(1, Ledger.inboxRows(CONSUMER, held), "one inbox row for the delivery whose ack was lost");
        assertEquals(workload.unique() + 1, Ledger.totalRows("point_grant"), "one ledger entry per unique id");
        assertEquals(workload.unique() + 1, counted.messages(CONSUMER, "processed"), "each id processed once");
        // Every copy the four senders sent beyond the first of each id, plus the held one's redelivery.
        assertEquals(workload.messages().size() * 4 - workload.unique() + 1, counted.messages(CONSUMER, "duplicate"),
                "duplicates absorbed");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
        assertNothingUnacknowledged();
        given().get("/admin/reconciliation").then().statusCode(200).body("consistent", equalTo(true));
        given().get("/q/health/ready").then().statusCode(200);
    }

    /**
     * A hung broker: every connection, the new ones too, passes no byte. Readiness goes down once the idle timeout
     * has closed the connection (the new one never completes), and consumption resumes when the broker does.
     */
    @Test
    void aHungBrokerTakesReadinessDownAndConsumptionResumesWhenItAnswers() throws Exception {
        awaitConsuming();
        Workload workload = new Workload(200, 0.2, 32_000, 10, 12);
        MetricsDelta counted = MetricsDelta.start();

        BrokerProxy.proxy().freeze();
        long frozenAt = System.nanoTime();
        await("readiness down while the broker is silent").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> given().get("/q/health/ready").statusCode() == 503);
        Duration downAfter = Duration.ofNanos(System.nanoTime() - frozenAt);
        assertTrue(downAfter.compareTo(IDLE_TIMEOUT.multipliedBy(5)) < 0, "readiness down after " + downAfter);
        given().get("/q/health/ready").then().statusCode(503)
                .body("checks.find { it.name.contains('Messaging') }.data.points-granted", equalTo("[KO]"));
        given().get("/q/health/live").then().statusCode(200);
        ParallelSenders.sameMessagesFromEach(workload.messages(), 4);

        BrokerProxy.proxy().thaw();
        await("ready once the broker answers").atMost(Duration.ofSeconds(60))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);
        await("applied once the broker answers").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique()
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        workload.assertInvariantHolds(CONSUMER);
        assertEquals(workload.unique(), counted.messages(CONSUMER, "processed"), "each id processed once");
    }

    /**
     * A reconnection whose opening the broker never answers (a broker hung, or gone behind a proxy that still accepts
     * connections), after the connection it replaces fell silent. The idle timeout counts only once a connection is
     * open, so without a bound on the socket's reads the connector would wait on that opening for good, and only a
     * restart of the pod would bring consumption back.
     */
    @Test
    void aReconnectionWhoseOpeningIsNeverAnsweredIsLeftAndTriedAgain() throws Exception {
        awaitConsuming();
        long user = 33_000L + System.nanoTime() % 1_000;
        // Every AMQP connection starts with the protocol header ("AMQP" and the version: SASL here).
        BrokerProxy.proxy().silenceNextConnectionSending("AMQP".getBytes(StandardCharsets.US_ASCII));
        BrokerProxy.proxy().silenceOpenConnections();
        await("a reconnection's opening unanswered").atMost(Duration.ofSeconds(30))
                .until(() -> BrokerProxy.proxy().trapSprung());

        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(UUID.randomUUID(), user, 4));
        }
        // The opening is left after twice the idle timeout; the watch would call the channel stuck (and take liveness
        // down) only once the broker had accepted its own connections for 10 s, on checks 5 s apart.
        await("applied over the next connection").atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100)).until(() -> Ledger.balance(CONSUMER, user) == 4);
        given().get("/q/health/live").then().statusCode(200);
        await("ready").atMost(Duration.ofSeconds(10)).until(() -> given().get("/q/health/ready").statusCode() == 200);
    }

    private static void awaitConsuming() {
        await("consuming").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200
                        && ArtemisTestResource.queue(ArtemisTestResource.ADDRESS).getConsumerCount() > 0);
    }
}
