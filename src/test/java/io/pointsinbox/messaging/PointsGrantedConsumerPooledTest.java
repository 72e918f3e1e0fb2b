package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import io.agroal.api.AgroalDataSource;
import io.pointsinbox.support.Pgbouncer;
import io.pointsinbox.support.PostgresTestDatabase;
import io.pointsinbox.support.TransactionPooler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * Every test of {@link PointsGrantedConsumerTest} (the same message twice, parallel senders, a failure then a
 * redelivery, poison messages, ...) with the database behind PgBouncer in transaction mode, configured as
 * operations.md says. Needs the machine's {@code pgbouncer} ({@code .ci/run} installs it).
 */
@QuarkusTest
@TestProfile(TransactionPooler.class)
@EnabledIf("io.pointsinbox.support.Pgbouncer#installed")
class PointsGrantedConsumerPooledTest extends PointsGrantedConsumerTest {

    @Inject
    AgroalDataSource dataSource;

    @Test
    void theApplicationsConnectionsGoThroughThePooler() throws Exception {
        int port = Pgbouncer.start(Pgbouncer.Mode.TRANSACTION);
        assertEquals(TransactionPooler.url(port), dataSource.getConfiguration().connectionPoolConfiguration()
                .connectionFactoryConfiguration().jdbcUrl());
        try (Connection held = dataSource.getConnection()) {
            // The pooler's admin console lists its clients; the JDBC driver cannot speak to it, psql can.
            Process psql = new ProcessBuilder("psql", "-h", "127.0.0.1", "-p", String.valueOf(port), "-U", "postgres",
                    "-At", "-c", "show clients", "pgbouncer").redirectErrorStream(true).start();
            String clients = new String(psql.getInputStream().readAllBytes());
            assertEquals(0, psql.waitFor(), clients);
            long ours = clients.lines().filter(line -> line.contains("|" + PostgresTestDatabase.DATABASE + "|"))
                    .count();
            assertTrue(ours >= 1, "the pooler serves the application's connections:\n" + clients);
        }
    }
}
