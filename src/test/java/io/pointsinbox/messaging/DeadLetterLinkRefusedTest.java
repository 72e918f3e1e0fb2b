package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.ConsoleLogFile;
import io.pointsinbox.support.InboxTestBase;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The broker refuses the service's dead-letter link (here its address neither exists nor is created; in production,
 * a user without the permission to send there). The AMQP connector then reports the channel failed, closes its
 * clients, the inbound channel's included, and never attaches the dead-letter link again (here the inbound channel is
 * not reattached either): only a restart helps. The service says so once,
 * as an error, and liveness goes down so that the pod is restarted; what is sent meanwhile waits on the broker.
 */
@QuarkusTest
@TestProfile(DeadLetterLinkRefusedTest.NotCreated.class)
class DeadLetterLinkRefusedTest extends InboxTestBase {

    public static class NotCreated implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(ConsoleLogFile.settings("dead-letter-link-refused"));
            settings.put("points.dead-letter-address", ArtemisTestResource.NOT_CREATED);
            return settings;
        }
    }

    @Test
    void aRefusedDeadLetterLinkTakesLivenessDownWithOneErrorAndNothingIsLost() throws Exception {
        await("liveness down").atMost(Duration.ofSeconds(10)).untilAsserted(() -> given().get("/q/health/live")
                .then().statusCode(503).body(containsString("closed the dead-letter channel for good (the broker refused its link")));

        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(UUID.randomUUID(), 98, 6));
        }
        await("said").atMost(Duration.ofSeconds(15)).until(() -> ConsoleLogFile.lines().stream()
                .anyMatch(line -> line.contains("closed the dead-letter channel to " + ArtemisTestResource.NOT_CREATED)));
        Thread.sleep(2_000);
        List<String> said = ConsoleLogFile.lines().stream()
                .filter(line -> line.contains("closed the dead-letter channel to")).toList();
        assertEquals(1, said.size(), "said once: " + said);
        assertTrue(said.get(0).contains("\"ERROR\"")
                && said.get(0).contains("Liveness is down so that the pod is restarted"), said.get(0));
        List<String> failed = ConsoleLogFile.lines().stream().filter(line -> line.contains("\"SRMSG16225")).toList();
        assertEquals(1, failed.size(), "the connector's report, once: " + failed);
        assertTrue(failed.get(0).contains("amqp:not-found"), "it names the broker's reason: " + failed.get(0));
        assertEquals(1, ArtemisTestResource.pending(ArtemisTestResource.ADDRESS), "the grant waits on the broker");
        given().get("/q/health/live").then().statusCode(503);
        ArtemisTestResource.purge(ArtemisTestResource.ADDRESS);
    }
}
