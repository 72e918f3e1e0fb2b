package io.pointsinbox.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import io.pointsinbox.support.Pgbouncer;
import io.pointsinbox.support.PostgresTestDatabase;

/**
 * The start-up check that refuses connections whose sessions a pooler shares between clients while the driver names
 * its prepared statements: it finds PgBouncer's transaction mode, and nothing on a direct connection, in session mode
 * or without named statements. Through a real PgBouncer ({@code .ci/run} installs it).
 */
class SharedSessionsCheckTest {

    @BeforeAll
    static void pgbouncer() {
        Assumptions.assumeTrue(Pgbouncer.installed(), "no pgbouncer on this machine (apt-get install pgbouncer)");
    }

    @Test
    void aDirectConnectionPasses() throws Exception {
        java.net.InetSocketAddress database = PostgresTestDatabase.server();
        assertEquals(Optional.empty(), SharedSessionsCheck.problem(dataSource(database.getHostString(),
                database.getPort(), "")));
    }

    @Test
    void aPoolerInSessionModePasses() throws Exception {
        int port = Pgbouncer.start(Pgbouncer.Mode.SESSION);
        assertEquals(Optional.empty(), SharedSessionsCheck.problem(dataSource("127.0.0.1", port, "")));
    }

    @Test
    void aPoolerInTransactionModeIsFoundAndTheFixNamed() throws Exception {
        int port = Pgbouncer.start(Pgbouncer.Mode.TRANSACTION);
        // Several times: the probe must not depend on which session the pooler hands out first.
        for (int i = 0; i < 5; i++) {
            Optional<String> problem = SharedSessionsCheck.problem(dataSource("127.0.0.1", port, ""));
            assertTrue(problem.isPresent(), "found on attempt " + i);
            assertTrue(problem.get().contains("prepareThreshold=0 to QUARKUS_DATASOURCE_JDBC_URL"), problem.get());
        }
    }

    @Test
    void aPoolerHandingOutItsSessionsInTurnIsFoundToo() throws Exception {
        int port = Pgbouncer.start(Pgbouncer.Mode.TRANSACTION_ROUND_ROBIN);
        // Idle sessions in the pool, so that the second connection, and the probe's next run, get other sessions.
        Pgbouncer.holdSessions(port, "postgres", 4);
        for (int i = 0; i < 5; i++) {
            assertTrue(SharedSessionsCheck.problem(dataSource("127.0.0.1", port, "")).isPresent(),
                    "found on attempt " + i);
        }
    }

    @Test
    void aPoolerInTransactionModeWithoutNamedStatementsPasses() throws Exception {
        int port = Pgbouncer.start(Pgbouncer.Mode.TRANSACTION);
        assertEquals(Optional.empty(), SharedSessionsCheck.problem(dataSource("127.0.0.1", port,
                "?prepareThreshold=0")));
    }

    private static PGSimpleDataSource dataSource(String host, int port, String parameters) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL("jdbc:postgresql://" + host + ":" + port + "/postgres" + parameters);
        dataSource.setUser(PostgresTestDatabase.user());
        dataSource.setPassword(PostgresTestDatabase.password());
        return dataSource;
    }
}
