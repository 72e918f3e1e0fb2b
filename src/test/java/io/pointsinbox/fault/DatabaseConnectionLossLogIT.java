package io.pointsinbox.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;
import io.pointsinbox.support.Tokens;
import io.pointsinbox.support.Workload;

/**
 * What the packaged service writes to its console when its database connections are killed under load (a failover,
 * a restarted PostgreSQL): every delivery in flight fails at once, and each is one WARN line naming the message, the
 * attempt and the lost connection, with no ERROR and no stack trace; every message is still applied once.
 */
class DatabaseConnectionLossLogIT {

    private static final String CONSUMER = "points-ledger";

    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("database-connection-loss-it");

    @Test
    void killedDatabaseConnectionsAreOneWarningLineEachAndNothingIsLostOrDoubled() throws Exception {
        Workload workload = new Workload(3_000, 0.0, 70_000, 40, 7);
        // The application owns the schema: let it migrate once before the tables are reset.
        AppProcess.startReady(SERVICES.environment(), SERVICES.log("migrate.log")).terminate(Duration.ofSeconds(30));
        Ledger.reset();
        workload.sendAll();

        Path log = SERVICES.log("service.log");
        AppProcess app = AppProcess.startReady(SERVICES.environment(), log);
        try {
            long killed = Ledger.endServiceSessionsInWaves(CONSUMER, workload.unique());
            assertTrue(killed > 0, "the application's backends were terminated");
            await("drained").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Ledger.inboxRows(CONSUMER) == workload.unique()
                            && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
            workload.assertInvariantHoldsInDatabase(CONSUMER);
            assertEquals(200, app.status("/admin/reconciliation", Tokens.withRoles(Tokens.OPS)),
                    "the reconciliation finds the ledger consistent");
        } finally {
            app.terminate(Duration.ofSeconds(30));
        }

        List<String> lines = Files.readAllLines(log);
        List<String> lost = lines.stream().filter(line -> line.contains(" WARN ") && line.contains(" for consumer "
                + CONSUMER + " failed on delivery attempt ") && line.contains("the database connection was lost"))
                .toList();
        assertTrue(!lost.isEmpty(), "deliveries in flight failed, each reported as a lost connection:\n"
                + String.join("\n", lines));
        assertEquals(List.of(), lines.stream().filter(line -> line.contains(" ERROR ") || line.startsWith("\tat ")
                || line.contains("ARJUNA016045") || line.contains("ARJUNA016039")).toList(),
                "no error, no stack trace, no report of the rollback on the closed connection");
        System.out.printf("FAULT-REPORT | database connections killed | %d deliveries failed, one WARN line each%n",
                lost.size());
    }
}
