package io.pointsinbox.messaging;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.FailureInjector;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.reactive.messaging.ChannelRegistry;
import io.smallrye.reactive.messaging.PausableChannel;

/**
 * A stream that stops taking deliveries while its connection and link are up: here its demand is paused, as a stream
 * whose acknowledgements never complete stops asking for more. The deliveries it holds stay unsettled and nothing
 * fails; the service notices once none has reached it for {@code points.stall-timeout}, logs one error and takes
 * liveness down, so that Kubernetes restarts the pod. A delivery that runs longer than that bound (a transaction
 * waiting on the database) is not a stall, however many wait behind it.
 */
@QuarkusTest
@TestProfile(StalledConsumptionTest.ShortStallTimeout.class)
class StalledConsumptionTest extends InboxTestBase {

    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(5);

    public static class ShortStallTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("points.stall-timeout", STALL_TIMEOUT.toSeconds() + "s");
        }
    }

    @Inject
    ChannelRegistry channels;

    @Inject
    StalledConsumption stall;

    @Test
    void deliveriesHeldWithNoneRunningTakeLivenessDownWithOneErrorAndARunningOneNeverDoes() throws Exception {
        assertEquals(STALL_TIMEOUT, stall.timeout());
        PausableChannel channel = channels.getPausable(PointsGrantedConsumer.CHANNEL);
        long user = 7_001;
        UUID running = UUID.randomUUID();
        FailureInjector.Hold hold = failures.hold(running);
        try (LogCapture capture = LogCapture.of(StalledConsumption.class);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            List<String> logged = capture.lines();
            sender.sendText(AmqpTestClient.grant(running, user, 1));
            assertTrue(hold.awaitEntered(30), "the first delivery is running");
            channel.pause();
            for (int i = 0; i < 20; i++) {
                sender.sendText(AmqpTestClient.grant(UUID.randomUUID(), user, 10));
            }
            // One delivery runs for four times the bound while twenty wait behind it: not a stall (checked every
            // 5 s, a watch that counted it would have said so well before the end).
            Instant until = Instant.now().plus(STALL_TIMEOUT.multipliedBy(4));
            while (Instant.now().isBefore(until)) {
                given().get("/q/health/live").then().statusCode(200);
                Thread.sleep(500);
            }
            assertTrue(logged.isEmpty(), "nothing said while a delivery runs: " + logged);

            hold.release();
            await("the running delivery applied").atMost(Duration.ofSeconds(10))
                    .until(() -> Ledger.inboxRows(CONSUMER, running) == 1);
            Instant finished = Instant.now();
            await("liveness down").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> given().get("/q/health/live").statusCode() == 503);
            Duration after = Duration.between(finished, Instant.now());
            assertTrue(after.compareTo(STALL_TIMEOUT) >= 0, "not before the bound: " + after);
            given().get("/q/health/live").then().statusCode(503)
                    .body(containsString("stopped handing to the service for 5 s"));
            assertEquals(1, logged.size(), "one line: " + logged);
            assertTrue(logged.get(0).startsWith("ERROR") && logged.get(0).contains("holds 20 deliveries unsettled")
                    && logged.get(0).contains("stopped taking them"), logged.get(0));
            assertEquals(1, Ledger.balance(CONSUMER, user), "the held deliveries were not applied");

            channel.resume();
            await("the held deliveries applied").atMost(Duration.ofSeconds(30))
                    .until(() -> Ledger.balance(CONSUMER, user) == 201);
            await("liveness up again").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                    .until(() -> given().get("/q/health/live").statusCode() == 200);
            assertEquals(2, logged.size(), "and one line when it moves again: " + logged);
            assertTrue(logged.get(1).startsWith("INFO") && logged.get(1).contains("takes deliveries again"),
                    logged.get(1));
            awaitDrained();
            assertEquals(21, Ledger.inboxRows(CONSUMER));
        } finally {
            hold.release();
            channel.resume();
        }
    }
}
