package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;
import io.pointsinbox.support.PostgresTestDatabase;
import io.pointsinbox.support.TcpProxy;

/**
 * A pod started before its database, as after a cluster restart where PostgreSQL comes up last. The packaged service
 * waits for it (the schema migration connects again, about 40 s in all) instead of exiting at once into Kubernetes'
 * restart back-off, then consumes the backlog that waited on the broker, each message once. A database that does
 * not come back ends the start with a reason naming it.
 */
class DatabaseAwayAtStartIT {

    private static final String CONSUMER = "points-ledger";
    private static final int GRANTS = 40;

    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("database-away-it");

    @Test
    void aServiceStartedBeforeItsDatabaseWaitsForItThenAppliesTheBacklogOnce() throws Exception {
        URI direct = URI.create(System.getProperty(PostgresTestDatabase.DIRECT_URL).substring("jdbc:".length()));
        long userId = 7_800_000L + System.nanoTime() % 100_000;
        List<String> grants = IntStream.range(0, GRANTS).mapToObj(i -> grant(UUID.randomUUID(), userId, 2)).toList();
        ArtemisTestResource.preload(grants);
        try (TcpProxy database = new TcpProxy(direct.getHost(), direct.getPort())) {
            database.cut();
            Map<String, String> env = SERVICES.environment();
            env.put("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:" + database.port() + direct.getPath());
            Path log = SERVICES.log("waits.log");
            AppProcess app = AppProcess.start(env, log);
            try {
                await("8 s of waiting for the database, alive and not ready").during(Duration.ofSeconds(8))
                        .atMost(Duration.ofSeconds(10)).until(() -> app.alive() && !app.ready());
                String waiting = Files.readString(log);
                assertTrue(waiting.contains("Connection to 127.0.0.1:" + database.port() + " refused"),
                        "the wait names the database it waits for:\n" + waiting);
                assertEquals(0, Ledger.grants(CONSUMER, userId), "nothing applied without the database");

                database.restore();
                await("ready once the database answers").atMost(Duration.ofSeconds(30)).until(app::ready);
                await("the backlog applied").atMost(Duration.ofSeconds(60))
                        .until(() -> Ledger.grants(CONSUMER, userId) == GRANTS
                                && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
                assertEquals(2L * GRANTS, Ledger.balance(CONSUMER, userId), "each message applied once");
                assertEquals(GRANTS, app.metric("points_inbox_messages_total", "consumer", CONSUMER, "outcome",
                        "processed"), "each counted once");
                assertEquals(0, ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount(),
                        "nothing dead-lettered");
            } finally {
                app.terminate(Duration.ofSeconds(30));
            }
        }
    }

    @Test
    void aDatabaseThatNeverAnswersEndsTheStartNamingIt() throws Exception {
        try (TcpProxy database = refusing()) {
            Map<String, String> env = environmentFor(database);
            // Fewer attempts than the default's 40 s, so that the test does not wait for them.
            env.put("QUARKUS_FLYWAY_CONNECT_RETRIES", "2");
            Path log = SERVICES.log("gives-up.log");
            OptionalInt exit = AppProcess.start(env, log).awaitExit(Duration.ofSeconds(60));
            String output = Files.readString(log);
            assertTrue(exit.isPresent(), "still running 60 s after start:\n" + output);
            assertNotEquals(0, exit.getAsInt(), output);
            assertTrue(output.contains("Unable to obtain connection from database"), output);
            assertTrue(output.contains("Connection to 127.0.0.1:" + database.port() + " refused"), output);
            assertFalse(output.contains("started in"), "never started:\n" + output);
            assertFalse(output.contains("Stop requested"), "a start that failed is no stop request:\n" + output);
        }
    }

    @Test
    void aStopRequestWhileWaitingForTheDatabaseEndsTheStartAtOnce() throws Exception {
        try (TcpProxy database = refusing()) {
            Map<String, String> env = environmentFor(database);
            Path log = SERVICES.log("stopped-while-waiting.log");
            AppProcess app = AppProcess.start(env, log);
            try {
                // The default wait (10 attempts, about 40 s), past its second attempt.
                await("waiting for the database").atMost(Duration.ofSeconds(60))
                        .until(() -> Files.readString(log).contains("Retrying in 2 sec"));
                Duration stopped = app.terminate(Duration.ofSeconds(10));
                String output = Files.readString(log);
                assertTrue(stopped.compareTo(Duration.ofSeconds(5)) < 0, "stopped after " + stopped + ":\n" + output);
                assertEquals(OptionalInt.of(143), app.awaitExit(Duration.ZERO), "the exit of a SIGTERM:\n" + output);
                assertTrue(output.contains("INFO  [io.po.op.StopWhileWaitingForDatabase]")
                        && output.contains("Stop requested while the service was still starting"), output);
                assertFalse(output.contains("started in"), "never started:\n" + output);
                assertFalse(output.contains("Retrying in 4 sec"), "no further attempt:\n" + output);
            } finally {
                if (app.alive()) {
                    app.kill();
                }
            }
        }
    }

    /** A database address that refuses every connection. */
    private static TcpProxy refusing() throws IOException {
        TcpProxy database = new TcpProxy("127.0.0.1", 1);
        database.cut();
        return database;
    }

    private static Map<String, String> environmentFor(TcpProxy database) {
        Map<String, String> env = SERVICES.environment();
        env.put("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:" + database.port() + "/none");
        return env;
    }
}
