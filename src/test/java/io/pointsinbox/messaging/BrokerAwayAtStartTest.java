package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;


import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.BrokerProxy;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.Metrics;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * A pod started while its broker is away, as after a cluster restart where the broker comes up last: the service
 * starts, stays alive and unready, and consumes as soon as the broker answers. Were the start-up or liveness probe
 * to fail, Kubernetes would restart it in a loop and then hold it back for minutes after the broker returned.
 */
@QuarkusTest
@TestProfile(BrokerAwayAtStartTest.BrokerBehindProxy.class)
class BrokerAwayAtStartTest extends InboxTestBase {

    public static class BrokerBehindProxy implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(BrokerProxy.class, Map.of("cut", "true")));
        }
    }

    @Inject
    BrokerConnectionWatch watch;

    @Test
    void startsAndStaysAliveWithoutItsBrokerThenConsumesOnceTheBrokerAnswers() throws Exception {
        // Several reconnect intervals (1 s) with the broker unreachable.
        for (int probe = 1; probe <= 6; probe++) {
            given().get("/q/health/started").then().statusCode(200);
            given().get("/q/health/live").then().statusCode(200);
            given().get("/q/health/ready").then().statusCode(503)
                    .body("checks.find { it.name.contains('Messaging') }.data.points-granted", equalTo("[KO]"));
            Thread.sleep(500);
        }
        await("the missing connection noticed").atMost(Duration.ofSeconds(20))
                .until(() -> watch.missingSince().isPresent());
        given().get("/q/health/live").then().statusCode(200);
        assertEquals(0.0, brokerConnectedGauge(), "points_inbox_broker_connected while the broker is away");
        BrokerProxy.proxy().restore();
        await("ready once the broker answers").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);
        await("the gauge up once the broker answers").atMost(Duration.ofSeconds(10))
                .until(() -> brokerConnectedGauge() == 1.0);
        await("the connection seen back").atMost(Duration.ofSeconds(20))
                .until(() -> watch.missingSince().isEmpty());

        UUID id = UUID.randomUUID();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(id, 808, 8));
            sender.sendText("{not json");
        }
        await("applied").atMost(Duration.ofSeconds(30)).until(() -> Ledger.balance(CONSUMER, 808) == 8);
        await("the poison message dead-lettered").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 1);
        given().get("/q/health/live").then().statusCode(200);
    }

    /**
     * The service's own gauge of the inbound connection, read as a scraper would. Unlike the Vert.x client's
     * {@code amqp_active_connections} (not exported: {@link StaleConnectionGauge}), it follows every loss and return.
     */
    private static double brokerConnectedGauge() {
        double value = Metrics.find(given().get("/q/metrics").then().statusCode(200).extract().asString(),
                "points_inbox_broker_connected", "channel=\"points-granted\"");
        assertFalse(Double.isNaN(value), "points_inbox_broker_connected{channel=\"points-granted\"} is exported");
        return value;
    }

    @Test
    void aLostBrokerIsLoggedAsAWarningNamingItAndItsReturnAsInfo() throws Exception {
        await("connected").atMost(Duration.ofSeconds(30)).until(() -> {
            BrokerProxy.proxy().restore();
            return given().get("/q/health/ready").statusCode() == 200 && watch.missingSince().isEmpty();
        });
        try (LogCapture capture = LogCapture.of(BrokerConnectionWatch.class);
                LogCapture micrometer = LogCapture.of("io.micrometer")) {
            List<String> logged = capture.lines();
            BrokerProxy.proxy().cut();
            String broker = "127.0.0.1:" + BrokerProxy.proxy().port();
            await("a warning naming the broker").atMost(Duration.ofSeconds(30)).until(() -> logged.stream()
                    .anyMatch(line -> line.startsWith("WARN No connection to the AMQP broker at " + broker
                            + " (channel points-granted) for at least ")));
            assertEquals(0.0, brokerConnectedGauge(), "points_inbox_broker_connected once the connection is lost");
            BrokerProxy.proxy().restore();
            await("its return logged").atMost(Duration.ofSeconds(30)).until(() -> logged.stream()
                    .anyMatch(line -> line.startsWith("INFO The AMQP broker at " + broker
                            + " answers again (channel points-granted), after about ")));
            assertEquals(1.0, brokerConnectedGauge(), "points_inbox_broker_connected after a reconnect");
            // The Vert.x client registers its connection gauge again with each new connection: kept out, it neither
            // reads 0 while connected nor makes Micrometer warn of a second registration.
            String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
            assertTrue(Double.isNaN(Metrics.find(metrics, "amqp_active_connections")),
                    "the client's stale connection gauge is not exported");
            assertEquals(1.0, Metrics.find(metrics, "amqp_connections_seconds_active_count",
                    "clientName=\"points-granted\""), "the client's open connections after a reconnect");
            assertEquals(List.of(), micrometer.lines(), "Micrometer logged nothing about the reconnect");
            assertEquals(1, logged.stream().filter(line -> line.startsWith("WARN")).count(),
                    "one warning for a short outage: " + logged);
        } finally {
            BrokerProxy.proxy().restore();
        }
    }
}
