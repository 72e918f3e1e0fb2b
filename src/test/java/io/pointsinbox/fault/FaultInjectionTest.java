package io.pointsinbox.fault;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.pointsinbox.messaging.ConsumptionSwitch;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.Metrics;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.PostgresTestDatabase;
import io.pointsinbox.support.Workload;
import io.quarkus.test.junit.QuarkusTest;

/** The same invariant under a broker restart, killed database connections and a database outage. */
@QuarkusTest
class FaultInjectionTest extends InboxTestBase {

    private static final Logger LOG = Logger.getLogger(FaultInjectionTest.class);

    @Inject
    ConsumptionSwitch consumption;

    @ConfigProperty(name = "points.concurrency")
    int concurrency;

    @Test
    void brokerRestartInTheMiddleOfAStreamLosesNothingAndDoublesNothing() throws Exception {
        Workload workload = new Workload(3_000, 0.2, 10_000, 40, 1);
        long started = System.nanoTime();
        MetricsDelta counted = MetricsDelta.start();
        // Preload a backlog first, so that the restart hits a consumer in the middle of it.
        ArtemisTestResource.preload(workload.messages());
        await("a quarter applied").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> Ledger.inboxRows(CONSUMER) >= workload.unique() / 4);
        long appliedAtRestart = Ledger.inboxRows(CONSUMER);
        ArtemisTestResource.restart(Duration.ofSeconds(2));
        assertTrue(appliedAtRestart < workload.unique(), "the restart happened mid-stream (" + appliedAtRestart
                + " of " + workload.unique() + " applied)");

        await("stream drained after the restart").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique()
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        workload.assertInvariantHolds(CONSUMER);
        assertConcurrencyBound();
        report("broker restart", workload, "1 broker restart (2 s down)", counted, started);
    }

    @Test
    void moreBrokerRestartsThanTheConnectorsDefaultRetryBudgetStillLeaveAConsumer() throws Exception {
        // The connector counts receiver failures over the channel's whole life; its default budget is 6, after
        // which consumption stops for good. Every restart here is one such failure (earlier tests add their own).
        for (int restart = 1; restart <= 8; restart++) {
            ArtemisTestResource.restart(Duration.ofMillis(200));
            await("consumer attached after restart " + restart).atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> ArtemisTestResource.queue(ArtemisTestResource.ADDRESS).getConsumerCount() > 0);
        }
        Workload workload = new Workload(200, 0.2, 15_000, 10, 4);
        workload.sendAll();
        await("applied after 8 restarts").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique()
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        workload.assertInvariantHolds(CONSUMER);
    }

    @Test
    void aBrokerOutageTakesReadinessDownNotLivenessAndLeavesOneConnectionPerChannel() throws Exception {
        await("ready with both channels connected").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);
        ArtemisTestResource.takeDown();
        try {
            // Probes as Kubernetes sends them while the broker is away.
            for (int probe = 1; probe <= 8; probe++) {
                given().get("/q/health/ready").then().statusCode(503);
                given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
                Thread.sleep(300);
            }
        } finally {
            ArtemisTestResource.bringBack();
        }
        await("ready again").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);
        // A restart is no reason to restart the pod: liveness and the start-up check stay up once the broker is back.
        await("no probe attempt becomes a connection of its own").during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(10)).until(() -> ArtemisTestResource.amqpConnections() <= 2);
        given().get("/q/health/live").then().statusCode(200);
        given().get("/q/health/started").then().statusCode(200);

        long deadLetteredBefore = deadLettered();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText("not json, sent after the outage");
        }
        await("the dead-letter link reopened for the first copy after the outage").atMost(Duration.ofSeconds(30))
                .until(() -> deadLettered() == deadLetteredBefore + 1);
        await("one connection per channel").atMost(Duration.ofSeconds(10))
                .until(() -> ArtemisTestResource.amqpConnections() == 2);
        given().get("/q/health/live").then().statusCode(200);
    }

    @Test
    void killedDatabaseConnectionsMidStreamAreRedeliveredAndAppliedOnce() throws Exception {
        Workload workload = new Workload(3_000, 0.2, 20_000, 40, 2);
        long started = System.nanoTime();
        MetricsDelta counted = MetricsDelta.start();
        CompletableFuture<Void> sending = CompletableFuture.runAsync(workload::sendAll);
        long killed = Ledger.endServiceSessionsInWaves(CONSUMER, workload.unique());
        sending.get();
        assertTrue(killed > 0, "the application's backends were terminated");

        await("stream drained").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique()
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        workload.assertInvariantHolds(CONSUMER);
        LOG.infof("killed %d backends; %s deliveries failed and were redelivered", killed,
                counted.messages(CONSUMER, "failed"));
        report("database connections killed", workload, killed + " backends killed in 3 waves", counted,
                started);
    }

    @Test
    void aDatabaseOutageLongerThanTheRedeliveryBudgetPausesConsumptionAndLosesNothing() throws Exception {
        Workload workload = new Workload(500, 0.2, 30_000, 10, 3);
        long started = System.nanoTime();
        MetricsDelta counted = MetricsDelta.start();
        PostgresTestDatabase.proxy().cut();
        try {
            workload.sendAll();
            await("readiness reports the outage").atMost(Duration.ofSeconds(30))
                    .until(() -> given().get("/q/health/ready").statusCode() == 503);
            given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"));
            given().get("/q/health/live").then().statusCode(200);
            // The deliveries that were past the gate when it closed fail, each within the pool's acquisition
            // timeout (5 s; in batched mode one batch after another). After that none may reach the database while
            // it is away: each would burn one of the broker's 3 attempts and, over a long outage, drain the queue
            // into the dead-letter address. Without the gate a delivery fails every second or two.
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            double failed = counted.messages(CONSUMER, "failed");
            while (true) {
                Thread.sleep(6_000);
                double now = counted.messages(CONSUMER, "failed");
                if (now == failed) {
                    break;
                }
                assertTrue(System.nanoTime() < deadline, "deliveries still failing a minute into the outage: "
                        + now + " failed; consumption is not held");
                failed = now;
            }
            assertEquals(0, deadLettered(), "messages wait on the broker during the outage");
            assertEquals(0, Ledger.inboxRows(CONSUMER), "nothing could be applied during the outage");
        } finally {
            PostgresTestDatabase.proxy().restore();
        }
        await("readiness back").atMost(Duration.ofSeconds(30))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);
        await("stream drained after the outage").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique()
                        && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        workload.assertInvariantHolds(CONSUMER);
        assertConcurrencyBound();
        report("database outage", workload, "database unreachable for > 5 s", counted, started);
    }

    /** However often consumption was held and let go, no more deliveries ran at once than the channel allows. */
    private void assertConcurrencyBound() {
        assertTrue(consumption.mostInHandler() <= concurrency, "at most " + concurrency
                + " deliveries in the handler at once, found " + consumption.mostInHandler());
    }

    private static void report(String scenario, Workload workload, String faults, MetricsDelta counted,
            long startedNanos) {
        double batches = Metrics.series("points_inbox_batch_size_count");
        String mode = Double.isNaN(batches) ? "one message per transaction"
                : String.format("batched: %.0f batches, largest %.0f", batches,
                        Metrics.series("points_inbox_batch_size_max"));
        LOG.infof("FAULT-REPORT | %s | %s | sent %d | duplicates injected %d | %s | duplicates absorbed %.0f |"
                + " lost %d | doubled %d | %.1f s", scenario, mode, workload.messages().size(),
                workload.duplicates(), faults, counted.messages(CONSUMER, "duplicate"),
                workload.lost(CONSUMER), workload.doubled(), (System.nanoTime() - startedNanos) / 1e9);
    }
}
