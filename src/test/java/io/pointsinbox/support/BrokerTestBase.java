package io.pointsinbox.support;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;

import io.quarkus.test.common.QuarkusTestResource;
import io.restassured.RestAssured;
import io.restassured.builder.RequestSpecBuilder;

/**
 * State reset and broker waits for tests that drive the application from outside, through the real broker and
 * HTTP: usable against the packaged application too ({@code @QuarkusIntegrationTest}), as it injects nothing.
 */
// The two resources every Quarkus test here needs, declared once: Quarkus starts a test resource for every test of
// the module whichever class declares it.
@QuarkusTestResource(ArtemisTestResource.class)
@QuarkusTestResource(PostgresTestDatabase.class)
public abstract class BrokerTestBase {

    protected static final String CONSUMER = "points-ledger";

    @BeforeEach
    void resetState() throws Exception {
        // Every request of these tests is made by a client allowed to write and to operate; SecurityTest says
        // what happens to the others.
        RestAssured.requestSpecification = new RequestSpecBuilder()
                .addHeader("Authorization", "Bearer " + Tokens.withRoles(Tokens.WRITER, Tokens.OPS)).build();
        beforeReset();
        awaitDrained();
        ArtemisTestResource.purge(ArtemisTestResource.DEAD_LETTER);
        Ledger.reset();
    }

    /** Runs first, before the queue is awaited and the state reset. */
    protected void beforeReset() {
    }

    /** Waits until the application has settled every message on the inbound queue. */
    protected static void awaitDrained() {
        await("inbound queue drained").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
    }

    /** Waits until the service has counted {@code expected} more messages with {@code outcome} since {@code counted}. */
    protected static void awaitCounter(String outcome, double expected, MetricsDelta counted) {
        await(outcome + " counter").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> counted.messages(CONSUMER, outcome) >= expected);
    }

    protected static void assertNothingUnacknowledged() {
        assertEquals(0, ArtemisTestResource.pending(ArtemisTestResource.ADDRESS),
                "every delivery on the inbound queue should be settled");
    }

    protected static long deadLettered() {
        return ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount();
    }
}
