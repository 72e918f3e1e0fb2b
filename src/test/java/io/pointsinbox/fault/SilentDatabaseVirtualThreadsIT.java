package io.pointsinbox.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;
import io.pointsinbox.support.ParallelSenders;
import io.pointsinbox.support.PostgresTestDatabase;
import io.pointsinbox.support.Workload;

/**
 * The database falling silent under the packaged service on Java 21 or later, where each delivery runs on a virtual
 * thread. There the connections a delivery holds have no socket timeout (a timed read is costly on a virtual thread):
 * the bound ({@code POINTS_DATABASE_SOCKET_TIMEOUT}, 4 s here) is kept by a watch that closes a connection held past
 * it. The deliveries stranded on the silent connections fail, are handed back, and are applied once over new
 * connections. The tests of the same fault in the test JVM ({@link SilentDatabaseTest}) run on Java 17's worker
 * threads, whose connections keep the bound on their socket; this one needs a JDK 21 or later, by default the
 * Temurin 25 of the recommended configuration ({@code JAVA25_HOME}, as {@code bin/build-recommended}).
 */
class SilentDatabaseVirtualThreadsIT {

    private static final String CONSUMER = "points-ledger";

    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("silent-database-virtual-it")
            .with("POINTS_DATABASE_SOCKET_TIMEOUT", "4s")
            .with("QUARKUS_TRANSACTION_MANAGER_DEFAULT_TRANSACTION_TIMEOUT", "3s")
            .with("POINTS_DEAD_LETTER_TIMEOUT", "1s");

    @Test
    void deliveriesStrandedOnASilentDatabaseAreClosedAtTheBoundAndAppliedOnceOverNewConnections() throws Exception {
        Path java = Path.of(System.getenv().getOrDefault("JAVA25_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin",
                "java");
        Assumptions.assumeTrue(Files.isExecutable(java), "a JDK 21 or later at " + java + " (JAVA25_HOME)");
        Ledger.reset();
        Map<String, String> env = SERVICES.environment();
        env.put("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:" + PostgresTestDatabase.proxy().port()
                + "/" + PostgresTestDatabase.DATABASE);
        Path log = SERVICES.log("service.log");
        AppProcess app = AppProcess.start(java.toString(), List.of(), env, log);
        try {
            await("ready").atMost(Duration.ofSeconds(60)).until(app::ready);
            assertTrue(Files.readString(log).contains("each on a virtual thread"), "deliveries on virtual threads");
            // Deliveries at once first, so that the pool holds several connections for the silence to strand.
            long warmUser = 43_000L;
            List<String> warm = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                warm.add(AmqpTestClient.grant(UUID.randomUUID(), warmUser, 1));
            }
            try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
                sender.sendAll(warm);
            }
            await("warm-up applied").atMost(Duration.ofSeconds(60)).until(() -> Ledger.inboxRows(CONSUMER) == 64);

            Workload workload = new Workload(400, 0.2, 43_100, 20, 31);
            PostgresTestDatabase.proxy().partitionOpenConnections();
            long silencedAt = System.nanoTime();
            ParallelSenders.sameMessagesFromEach(workload.messages(), 3);

            await("everything applied over new connections").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique() + 64
                            && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
            Duration drainedAfter = Duration.ofNanos(System.nanoTime() - silencedAt);

            workload.expectedBalances().forEach((user, expected) -> assertEquals(expected,
                    Ledger.balance(CONSUMER, user), "balance of user " + user));
            assertEquals(64, Ledger.balance(CONSUMER, warmUser), "the warm-up applied once");
            assertEquals(workload.unique() + 64, Ledger.totalRows("point_grant"), "one ledger entry per unique id");
            assertEquals(0, ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount(),
                    "nothing dead-lettered");
            List<String> closed = Files.readAllLines(log).stream().filter(line -> line.contains(" WARN ")
                    && line.contains("longer than points.database-socket-timeout (4 s), was closed")).toList();
            assertTrue(!closed.isEmpty(), "the connections stranded by the silence were closed at the bound:\n"
                    + Files.readString(log));
            // A delivery whose transaction the transaction manager rolled back at its timeout (3 s) before the watch
            // closed its connection (4 s) fails at its commit: a WARN line too, like the others, not an ERROR.
            List<String> errors = Files.readAllLines(log).stream().filter(line -> line.contains(" ERROR ")).toList();
            assertEquals(List.of(), errors, "every delivery stranded by the silence is one WARN line");
            assertTrue(drainedAfter.compareTo(Duration.ofSeconds(60)) < 0, "drained " + drainedAfter
                    + " after the silence");
            System.out.printf("FAULT-REPORT | silent database, deliveries on virtual threads | %d connections closed"
                    + " at the bound, drained %d ms after the silence%n", closed.size(), drainedAfter.toMillis());
        } finally {
            app.terminate(Duration.ofSeconds(30));
        }
    }
}
