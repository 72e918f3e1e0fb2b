package io.pointsinbox.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;
import io.pointsinbox.support.PostgresTestDatabase;
import io.pointsinbox.support.Tokens;
import io.pointsinbox.support.Workload;

/**
 * The packaged application killed with SIGKILL, several times in one run, and stopped with SIGTERM, while messages
 * are in flight: after restarts every message is applied exactly once.
 */
class ProcessCrashIT {

    private static final String CONSUMER = "points-ledger";

    /**
     * A SIGKILL spends one delivery attempt of every message the connector holds (up to its 1,000 link credits): three
     * kills need a budget above three, as in production (docker/artemis/broker.xml has 10). The window between the
     * commit and the acknowledgement is widened so far that every kill lands while several deliveries are committed but
     * not yet acknowledged.
     */
    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().deadLetteringAfter(10).logsIn("crash-it")
            .with("QUARKUS_PROFILE", "chaos").with("CHAOS_COMMIT_ACK_DELAY", "200ms");

    /** One message per transaction (the default), or batched mode: the same crashes, the same assertions. */
    private record Mode(String name, String logPrefix, Map<String, String> env) {
        String log(String name) {
            return logPrefix + name;
        }
    }

    private static final Mode PER_MESSAGE = new Mode("per message", "", Map.of());
    private static final Mode BATCHED = new Mode("batched", "batched-", Map.of("POINTS_BATCH_ENABLED", "true"));

    @Test
    void sigkillSeveralTimesWithMessagesInFlightLosesNothingAndDoublesNothing() throws Exception {
        sigkillSeveralTimes(PER_MESSAGE);
    }

    @Test
    void sigkillSeveralTimesInBatchedModeLosesNothingAndDoublesNothing() throws Exception {
        sigkillSeveralTimes(BATCHED);
    }

    @Test
    void sigtermWithMessagesInFlightGoesUnreadyFirstAndLosesNothing() throws Exception {
        sigterm(PER_MESSAGE);
    }

    @Test
    void sigtermInBatchedModeGoesUnreadyFirstAndLosesNothing() throws Exception {
        sigterm(BATCHED);
    }

    private static void sigkillSeveralTimes(Mode mode) throws Exception {
        Workload workload = new Workload(1_200, 0.0, 40_000, 30, 4);
        preload(workload);
        long started = System.nanoTime();
        AppProcess app = startApp("sigkill-0", mode);
        double redeliveredAfterCrash = 0;
        int kills = 0;
        for (double share : new double[] { 0.2, 0.45, 0.7 }) {
            long threshold = Math.round(workload.unique() * share);
            await("applied " + threshold).atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(10))
                    .until(() -> Ledger.inboxRows(CONSUMER) >= threshold);
            redeliveredAfterCrash += duplicates(app);
            app.kill();
            kills++;
            System.out.printf("after kill %d: %s%n", kills, state(workload));
            app = startApp("sigkill-" + kills, mode);
        }
        // Each crash cost at most one attempt per message: nothing near the dead-letter address yet.
        assertTrue(ArtemisTestResource.highestDeliveryCount(ArtemisTestResource.ADDRESS) <= kills,
                ArtemisTestResource.describe(ArtemisTestResource.ADDRESS));
        AppProcess last = app;
        awaitDrained(workload, last, mode.log("sigkill-" + kills));
        redeliveredAfterCrash += duplicates(last);
        assertInvariant(workload, last);
        last.terminate(Duration.ofSeconds(30));
        // The stream holds no duplicates: every duplicate seen is a delivery committed before a kill and
        // redelivered because its acknowledgement never reached the broker.
        assertTrue(redeliveredAfterCrash > 0, "at least one kill fell between a commit and its acknowledgement");
        System.out.printf("FAULT-REPORT | SIGKILL x%d | %s | sent %d | duplicates injected 0 |"
                + " committed-but-unacked redelivered %.0f | lost %d | doubled %d | %.1f s%n", kills, mode.name(),
                workload.messages().size(),
                redeliveredAfterCrash, workload.lost(CONSUMER), workload.doubled(),
                (System.nanoTime() - started) / 1e9);
    }

    private static void sigterm(Mode mode) throws Exception {
        Workload workload = new Workload(1_200, 0.1, 50_000, 20, 5);
        preload(workload);
        long started = System.nanoTime();
        AppProcess app = startApp("sigterm-0", mode);
        await("a third applied").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(10))
                .until(() -> Ledger.inboxRows(CONSUMER) >= workload.unique() / 3);
        long duplicatesBeforeStop = Math.round(duplicates(app));
        AppProcess stopping = app;
        Thread terminate = new Thread(() -> {
            try {
                System.out.printf("SIGTERM took %s%n", stopping.terminate(Duration.ofSeconds(40)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        terminate.start();
        await("readiness down while shutting down").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> stopping.status("/q/health/ready") == 503);
        terminate.join();
        assertTrue(!stopping.alive(), "the process exited");

        System.out.printf("after SIGTERM: %s%n", state(workload));
        // A graceful stop hands nothing back as failed: what was not processed returns to the broker uncounted,
        // so rolling restarts never push valid messages towards the dead-letter address.
        assertEquals(0, ArtemisTestResource.highestDeliveryCount(ArtemisTestResource.ADDRESS),
                "messages left on the broker by a graceful stop keep their delivery count");
        assertEquals(List.of(), errors(mode.log("sigterm-0")), "errors logged during the graceful stop");
        AppProcess restarted = startApp("sigterm-1", mode);
        awaitDrained(workload, restarted, mode.log("sigterm-1"));
        assertInvariant(workload, restarted);
        System.out.printf("FAULT-REPORT | SIGTERM | %s | sent %d | duplicates injected %d | duplicates seen before"
                + " stop %d, after restart %.0f | lost %d | doubled %d | %.1f s%n", mode.name(),
                workload.messages().size(),
                workload.duplicates(), duplicatesBeforeStop, duplicates(restarted), workload.lost(CONSUMER),
                workload.doubled(), (System.nanoTime() - started) / 1e9);
        restarted.terminate(Duration.ofSeconds(30));
    }

    @Test
    void sigtermDuringADatabaseOutageExitsPromptlyAndLosesNothing() throws Exception {
        Workload workload = new Workload(1_200, 0.1, 60_000, 20, 6);
        preload(workload);
        Map<String, String> throughProxy = new HashMap<>(PER_MESSAGE.env());
        throughProxy.put("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:"
                + PostgresTestDatabase.proxy().port() + "/" + PostgresTestDatabase.DATABASE);
        AppProcess app = startApp("outage-sigterm-0", new Mode("per message", "", throughProxy));
        await("a third applied").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(10))
                .until(() -> Ledger.inboxRows(CONSUMER) >= workload.unique() / 3);
        Duration took;
        PostgresTestDatabase.proxy().cut();
        try {
            // Consumption held for the outage: the deliveries that failed are back and wait in the service.
            await("consumption paused for the outage").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> app.body("/q/health/ready").matches("(?s).*\"paused\"\\s*:\\s*true.*"));
            Thread.sleep(2_000);
            took = app.terminate(Duration.ofSeconds(40));
        } finally {
            PostgresTestDatabase.proxy().restore();
        }
        System.out.printf("SIGTERM during a database outage took %s; %s%n", took, state(workload));
        assertTrue(!app.alive(), "the process exited");
        // The shutdown delay (2 s) and the drain of running transactions; the deliveries waiting for the database must
        // not hold it up (left waiting, they held it 10 s on JDK 17, until the worker pool interrupts them, and 60 s
        // on virtual threads).
        assertTrue(took.compareTo(Duration.ofSeconds(8)) < 0, "SIGTERM during an outage took " + took);

        AppProcess restarted = startApp("outage-sigterm-1", PER_MESSAGE);
        awaitDrained(workload, restarted, "outage-sigterm-1");
        assertInvariant(workload, restarted);
        restarted.terminate(Duration.ofSeconds(30));
    }

    /** A backlog on the broker and an empty ledger before the application starts, so kills land mid-stream. */
    private static void preload(Workload workload) throws Exception {
        // The application owns the schema: let it migrate once before the tables are reset.
        startApp("migrate", PER_MESSAGE).terminate(Duration.ofSeconds(30));
        Ledger.reset();
        workload.sendAll();
    }

    /** Applied messages, and what the broker holds: for progress lines and failure messages. */
    private static String state(Workload workload) {
        return String.format("%d of %d applied; %s; %s", Ledger.inboxRows(CONSUMER), workload.unique(),
                ArtemisTestResource.describe(ArtemisTestResource.ADDRESS),
                ArtemisTestResource.describe(ArtemisTestResource.DEAD_LETTER));
    }

    private static List<String> errors(String logName) throws Exception {
        try (var lines = Files.lines(SERVICES.log(logName + ".log"))) {
            return lines.filter(line -> line.contains(" ERROR ")).toList();
        }
    }

    /** Waits until every message is applied and settled; on timeout, says what the broker and the log show. */
    private static void awaitDrained(Workload workload, AppProcess app, String logName) {
        try {
            await("drained").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique()
                            && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        } catch (ConditionTimeoutException e) {
            List<String> problems;
            try (var lines = Files.lines(SERVICES.log(logName + ".log"))) {
                problems = lines.filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
                        .map(line -> line.length() > 300 ? line.substring(0, 300) : line).toList();
            } catch (Exception io) {
                problems = List.of("log unreadable: " + io);
            }
            throw new AssertionError(String.format("not drained: %s; application alive %s, ready %s; last warnings"
                    + " of %s:%n%s", state(workload), app.alive(), app.ready(), logName,
                    String.join("\n", problems.subList(Math.max(0, problems.size() - 20), problems.size()))), e);
        }
    }

    private static void assertInvariant(Workload workload, AppProcess app) throws Exception {
        workload.assertInvariantHoldsInDatabase(CONSUMER);
        assertEquals(200, app.status("/admin/reconciliation", Tokens.withRoles(Tokens.OPS)),
                "the reconciliation finds the ledger consistent");
    }

    private static AppProcess startApp(String name, Mode mode) throws Exception {
        Map<String, String> appEnv = SERVICES.environment();
        appEnv.putAll(mode.env());
        return AppProcess.startReady(appEnv, SERVICES.log(mode.log(name) + ".log"));
    }

    private static double duplicates(AppProcess app) throws Exception {
        double duplicates = app.metric("points_inbox_messages_total", "consumer=\"" + CONSUMER + "\"",
                "outcome=\"duplicate\"");
        return Double.isNaN(duplicates) ? 0 : duplicates;
    }
}
