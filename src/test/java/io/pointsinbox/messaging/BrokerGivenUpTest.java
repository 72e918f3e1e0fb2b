package io.pointsinbox.messaging;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.InboxTestBase;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * With a finite reconnection budget (AMQP_RECONNECT_ATTEMPTS) the inbound channel gives up for good once it is spent.
 * Liveness must then go down, so that Kubernetes restarts a pod that would otherwise never consume again, although
 * the channel's own liveness check is off (it would fail a pod merely started while the broker is away).
 */
@QuarkusTest
@TestProfile(BrokerGivenUpTest.SmallBudget.class)
class BrokerGivenUpTest extends InboxTestBase {

    public static class SmallBudget extends BrokerAwayAtStartTest.BrokerBehindProxy {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("amqp-reconnect-attempts", "1");
        }
    }

    @Test
    void aChannelThatGaveUpTakesLivenessDown() {
        given().get("/q/health/started").then().statusCode(200);
        // The dead-letter channel, whose link is attached on the same budget, may go down first (ChannelLiveness).
        await("liveness down once the budget is spent").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> given().get("/q/health/live").then()
                        .statusCode(503).body(containsString("PointsGrantedConsumer")));
    }
}
