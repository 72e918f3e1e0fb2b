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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.ConsoleLogFile;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.Metrics;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The service's address exists on the broker as MULTICAST only, with no queue: what a sender that asks for no queue
 * leaves on a fresh Artemis when it sends before the service first attached. The broker refuses the service's
 * receiver link ("not configured for queue support") on a connection it keeps open, and the connector attaches again
 * every second. The log, as the console writes it (a file with the console's filter), says it once, with what to do,
 * instead of two lines a second; readiness is down, with the broker's reason, instead of up; once the operator adds a
 * queue, the link is accepted, one line says so, readiness is up and a grant is applied.
 */
@QuarkusTest
@TestProfile(RefusedLinkTest.MulticastOnlyAddress.class)
class RefusedLinkTest extends InboxTestBase {

    public static class MulticastOnlyAddress implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(ConsoleLogFile.settings("refused-link"));
            settings.put("points.address", ArtemisTestResource.MULTICAST_ONLY);
            return settings;
        }
    }

    private static final String ADDRESS = ArtemisTestResource.MULTICAST_ONLY;
    private static final long USER = 97;
    private static final Pattern ACCEPTED = Pattern.compile(
            "accepts the receiver link on " + ADDRESS + ", after \\d+ s and (\\d+) refusals: consuming");

    @Test
    void aRefusedLinkIsOneErrorAndReadinessDownUntilTheBrokerAcceptsIt() throws Exception {
        await("readiness down").atMost(Duration.ofSeconds(10)).untilAsserted(() -> given().get("/q/health/ready")
                .then().statusCode(503).body(containsString("the broker refuses the receiver link on " + ADDRESS
                        + ": amqp:illegal-state: Address " + ADDRESS + " is not configured for queue support")));
        given().get("/q/health/live").then().statusCode(200);
        assertEquals(1.0, Metrics.series("points_inbox_broker_link_refused"), "the gauge an alert can watch");
        assertEquals(1.0, Metrics.series("points_inbox_broker_connected"), "the connection itself is there");
        // Several attempts, one a second.
        Thread.sleep(4_000);
        List<String> lines = ConsoleLogFile.lines();
        List<String> refused = lines.stream().filter(line -> line.contains("refuses this service's receiver link"))
                .toList();
        assertEquals(1, refused.size(), "one line for the refusal: " + lines);
        assertTrue(refused.get(0).contains("ERROR") && refused.get(0).contains("is not configured for queue support")
                && refused.get(0).contains("artemis address update --name " + ADDRESS + " --anycast --multicast"),
                refused.get(0));
        assertEquals(List.of(), lines.stream().filter(line -> line.contains("SRMSG16205")
                || line.contains("closed remotely") || line.contains("Error{condition")).toList(),
                "the connector's and the AMQP client's lines of each attempt");
        assertEquals(List.of(), lines.stream().filter(line -> line.contains("SRHCK01001")).toList(),
                "no health report in the log for each probe that found the service not ready");

        ArtemisTestResource.addAnycastQueue(ADDRESS);
        await("the link accepted").atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> given().get("/q/health/ready").then().statusCode(200));
        assertEquals(0.0, Metrics.series("points_inbox_broker_link_refused"));
        List<String> accepted = ConsoleLogFile.lines().stream().filter(line -> ACCEPTED.matcher(line).find())
                .toList();
        assertEquals(1, accepted.size(), "one line when the link is accepted");
        Matcher refusals = ACCEPTED.matcher(accepted.get(0));
        assertTrue(refusals.find() && Integer.parseInt(refusals.group(1)) >= 3, accepted.get(0));

        try (AmqpTestClient sender = new AmqpTestClient(ADDRESS)) {
            sender.sendText(grant(UUID.randomUUID(), USER, 4));
        }
        await("applied").atMost(Duration.ofSeconds(15)).until(() -> Ledger.balance(CONSUMER, USER) == 4);
        await("settled").atMost(Duration.ofSeconds(10)).until(() -> ArtemisTestResource.pending(ADDRESS) == 0);
        assertEquals(1, ArtemisTestResource.queue(ADDRESS).getConsumerCount(), "one link");
    }
}
