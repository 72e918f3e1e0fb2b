package io.pointsinbox.messaging;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.BrokerProxy;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The AMQP connector's hang: a connection lost while the inbound receiver's attach is on its way (here: the broker
 * never answers it, and the idle timeout closes the connection) leaves the channel with no connection and no attempt
 * to get one, for good, while the broker accepts connections again. The service notices (its own connection with
 * the channel's settings is accepted for ten reconnect intervals while the channel has none), logs one error and
 * takes liveness down, so that Kubernetes restarts the pod. Should a connector upgrade fix the hang, the channel
 * comes back by itself and this test fails: then it has done its job, and the watch can be reconsidered.
 */
@QuarkusTest
@TestProfile(StuckChannelTest.Profile.class)
class StuckChannelTest extends InboxTestBase {

    /** The broker behind a proxy, a 2 s idle timeout; an application of its own, since this test breaks its channel. */
    public static class Profile extends SilentBrokerTest.BrokerBehindProxy {
    }

    /** AMQP's attach performative (descriptor 0x12, as a small ulong), and the inbound link's source address. */
    private static final byte[] ATTACH = {0x00, 0x53, 0x12};
    private static final byte[] INBOUND = PointsGrantedConsumer.CHANNEL.getBytes(StandardCharsets.US_ASCII);

    @Inject
    BrokerConnectionWatch watch;

    @Test
    void aChannelThatStoppedReconnectingTakesLivenessDownWithOneError() {
        await("consuming").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200 && watch.missingSince().isEmpty());
        assertEquals(Duration.ofSeconds(10), watch.stuckAfter(), "ten reconnect intervals of 1 s, at least 10 s");
        try (LogCapture capture = LogCapture.of(BrokerConnectionWatch.class)) {
            List<String> logged = capture.lines();
            // The next inbound attach goes unanswered; then the open connections fall silent, so that the connector
            // reconnects and attaches again.
            BrokerProxy.proxy().silenceNextConnectionSending(ATTACH, INBOUND);
            BrokerProxy.proxy().silenceOpenConnections();
            Instant silenced = Instant.now();

            await("the channel lost").atMost(Duration.ofSeconds(20)).until(() -> watch.missingSince().isPresent());
            given().get("/q/health/live").then().statusCode(200);
            await("liveness down").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> given().get("/q/health/live").statusCode() == 503);
            Duration after = Duration.between(silenced, Instant.now());
            assertTrue(after.compareTo(Duration.ofSeconds(12)) >= 0, "not before the broker had answered for 10 s: "
                    + after);
            given().get("/q/health/live").then().statusCode(503)
                    .body(containsString("stopped reconnecting"));
            given().get("/q/health/ready").then().statusCode(503);
            List<String> errors = logged.stream().filter(line -> line.startsWith("ERROR")).toList();
            assertEquals(1, errors.size(), "one error line: " + logged);
            assertTrue(errors.get(0).contains("has accepted every connection of this service for")
                    && errors.get(0).contains("the AMQP connector stopped reconnecting it"), errors.get(0));
        }
    }
}
