package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The broker detaches the inbound receiver link and keeps the connection open (an operator closing the consumer from
 * the console, a queue deleted). The AMQP connector then ends the channel's stream without an error and attaches no
 * new link: readiness stays up, nothing is logged, and nothing is consumed again. The service notices a connection
 * without a receiver link at two checks in a row, closes it with one warning, and the connector reconnects with a new
 * link: the grant sent meanwhile is applied once.
 */
@QuarkusTest
@TestProfile(LostLinkTest.OwnApplication.class)
class LostLinkTest extends InboxTestBase {

    /** An application of its own: this test takes its channel's link away. */
    public static class OwnApplication implements QuarkusTestProfile {
    }

    private static final long USER = 93;

    @Test
    void aLinkTheBrokerDetachedIsRebuiltWithANewConnection() throws Exception {
        long before = Ledger.balance(CONSUMER, USER);
        try (AmqpTestClient sender = AmqpTestClient.toInbox();
                LogCapture capture = LogCapture.of(BrokerConnectionWatch.class)) {
            List<String> logged = capture.lines();
            sender.sendText(grant(UUID.randomUUID(), USER, 2));
            await("consuming").atMost(Duration.ofSeconds(30))
                    .until(() -> Ledger.balance(CONSUMER, USER) == before + 2);

            assertEquals(1, ArtemisTestResource.closeConsumers(ArtemisTestResource.ADDRESS), "the service's consumer");
            await("the link gone").atMost(Duration.ofSeconds(10))
                    .until(() -> ArtemisTestResource.queue(ArtemisTestResource.ADDRESS).getConsumerCount() == 0);
            // The connection is still there, so the connector's own readiness sees nothing wrong.
            given().get("/q/health/ready").then().statusCode(200);

            sender.sendText(grant(UUID.randomUUID(), USER, 3));
            await("applied on a new link").atMost(Duration.ofSeconds(30))
                    .until(() -> Ledger.balance(CONSUMER, USER) == before + 5);
            awaitDrained();
            assertEquals(1, ArtemisTestResource.queue(ArtemisTestResource.ADDRESS).getConsumerCount(), "one link");
            List<String> warnings = logged.stream().filter(line -> line.contains("no receiver link")).toList();
            assertEquals(1, warnings.size(), "one warning: " + logged);
            assertTrue(warnings.get(0).startsWith("WARN Channel points-granted had its connection to the AMQP broker"),
                    warnings.get(0));
            given().get("/q/health/live").then().statusCode(200);
            assertEquals(before + 5, Ledger.balance(CONSUMER, USER), "each grant once");
        }
    }
}
