package io.pointsinbox.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pointsinbox.config.RetentionConfig;
import io.pointsinbox.support.Pgbouncer;
import io.pointsinbox.support.PostgresTestDatabase;

/**
 * The retention behind a pooler in transaction mode that hands each transaction another session: every turn of a
 * single replica runs, deletes what has expired, and leaves no advisory lock behind in any pooled session. A lock
 * taken in one statement and released in a later one would stay with the session that took it, and every later turn
 * would skip. On a database of its own, migrated by the application's own scripts, through a real PgBouncer
 * ({@code .ci/run} installs it).
 */
class PooledRetentionTest {

    private static final String DATABASE = "points_inbox_retention_pooled";
    private static final int BATCH = 100;

    private static String direct;
    private static int pooler;

    @BeforeAll
    static void database() throws SQLException {
        Assumptions.assumeTrue(Pgbouncer.installed(), "no pgbouncer on this machine (apt-get install pgbouncer)");
        java.net.InetSocketAddress server = PostgresTestDatabase.server();
        String base = "jdbc:postgresql://" + server.getHostString() + ":" + server.getPort() + "/";
        try (Connection admin = DriverManager.getConnection(base + "postgres", PostgresTestDatabase.user(),
                PostgresTestDatabase.password());
                Statement statement = admin.createStatement()) {
            statement.execute("drop database if exists " + DATABASE + " with (force)");
            statement.execute("create database " + DATABASE);
        }
        direct = base + DATABASE;
        PostgresTestDatabase.migrate(direct);
        pooler = Pgbouncer.start(Pgbouncer.Mode.TRANSACTION_ROUND_ROBIN);
        // Idle sessions in the pool, so that consecutive transactions of one connection change session. Three, so
        // that no turn of five transactions (a lock, three deletes, an unlock) ends in the session it began in.
        Pgbouncer.holdSessions(pooler, DATABASE, 3);
    }

    @Test
    void everyTurnRunsAndNoLockOutlivesItsTransaction() throws Exception {
        PGSimpleDataSource pooled = new PGSimpleDataSource();
        pooled.setURL("jdbc:postgresql://127.0.0.1:" + pooler + "/" + DATABASE + "?prepareThreshold=0");
        pooled.setUser(PostgresTestDatabase.user());
        pooled.setPassword(PostgresTestDatabase.password());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        InboxRetention retention = new InboxRetention(pooled, config(), registry);

        for (int turn = 1; turn <= 4; turn++) {
            // 250 expired rows (three batches, the last one short) and 10 inside the window.
            execute("insert into inbox_message (id, consumer, message_id, message_type, payload_json, payload_hash,"
                    + " outcome, received_at, processed_at) select nextval('inbox_message_seq'), 'points-ledger',"
                    + " gen_random_uuid(), 'PointsGranted.v1', '{}', case when g <= 250 then 'old' else 'recent' end,"
                    + " 'PROCESSED', now() - case when g <= 250 then interval '30 days' else interval '1 day' end,"
                    + " now() from generate_series(1, 260) g");

            InboxRetention.Run run = retention.cleanup(Instant.now().minus(Duration.ofDays(7)));

            assertTrue(run.ran(), "turn " + turn + " ran: no lock was left held by an earlier turn");
            assertEquals(250, run.deleted(), "turn " + turn + " deleted the expired rows");
            assertEquals(0, single("select count(*) from pg_locks where locktype = 'advisory'"
                    + " and ((classid::bigint << 32) | objid::bigint) = " + InboxRetention.LOCK_KEY),
                    "turn " + turn + " left no advisory lock in any session");
        }
        assertEquals(0, single("select count(*) from inbox_message where payload_hash = 'old'"), "expired rows gone");
        assertEquals(40, single("select count(*) from inbox_message where payload_hash = 'recent'"),
                "rows inside the window kept");
        assertEquals(4, registry.counter(InboxRetention.RUNS, "result", "ran").count(), "four runs counted");
        assertEquals(1_000, registry.counter(InboxRetention.DELETED).count(), "every deleted row counted");
    }

    private static RetentionConfig config() {
        return new RetentionConfig() {
            @Override
            public boolean enabled() {
                return true;
            }

            @Override
            public Duration window() {
                return Duration.ofDays(7);
            }

            @Override
            public String cleanupInterval() {
                return "10m";
            }

            @Override
            public int batchSize() {
                return BATCH;
            }

            @Override
            public int brokerMaxDeliveryAttempts() {
                return 10;
            }

            @Override
            public Duration brokerMaxRedeliveryDelay() {
                return Duration.ofSeconds(60);
            }

            @Override
            public Duration redriveHorizon() {
                return Duration.ofDays(3);
            }
        };
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(direct, PostgresTestDatabase.user(),
                PostgresTestDatabase.password());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static long single(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(direct, PostgresTestDatabase.user(),
                PostgresTestDatabase.password());
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
