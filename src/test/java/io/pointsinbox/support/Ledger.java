package io.pointsinbox.support;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.eclipse.microprofile.config.ConfigProvider;

/** Reads and resets the database state that the tests assert on, over plain JDBC, outside the application. */
public final class Ledger {

    private Ledger() {
    }

    public static void reset() {
        execute("truncate table inbox_message, user_points, point_grant");
    }

    public static long balance(String consumer, long userId) {
        return single("select coalesce(sum(balance), 0) from user_points where consumer = '" + consumer
                + "' and user_id = " + userId);
    }

    public static long grants(String consumer, long userId) {
        return single("select count(*) from point_grant where consumer = '" + consumer + "' and user_id = " + userId);
    }

    public static long inboxRows(String consumer) {
        return single("select count(*) from inbox_message where consumer = '" + consumer + "'");
    }

    public static long inboxRows(String consumer, java.util.UUID messageId) {
        return single("select count(*) from inbox_message where consumer = '" + consumer + "' and message_id = '"
                + messageId + "'");
    }

    public static long totalRows(String table) {
        return single("select count(*) from " + table);
    }

    /** Backends of this test database waiting for a lock, e.g. on the inbox's unique index. */
    public static long backendsWaitingOnLocks() {
        return single("select count(*) from pg_stat_activity where datname = current_database()"
                + " and wait_event_type = 'Lock'");
    }

    /**
     * Ends every session of the service (its pool's connections, named {@code points-inbox}) on this test database, as
     * a restart or a failover of PostgreSQL does; returns how many.
     */
    public static long endServiceSessions() {
        return single("select count(pg_terminate_backend(pid)) from pg_stat_activity"
                + " where application_name = 'points-inbox' and datname = current_database()");
    }

    /** Ends the service's sessions three times: once a fifth, two fifths and three fifths of {@code unique} applied. */
    public static long endServiceSessionsInWaves(String consumer, int unique) {
        long ended = 0;
        for (int wave = 1; wave <= 3; wave++) {
            int threshold = unique * wave / 5;
            await("wave " + wave).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> inboxRows(consumer) >= threshold);
            ended += endServiceSessions();
        }
        return ended;
    }

    public static long single(String sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public static void execute(String sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** A direct connection to the test database, outside the application. */
    public static Connection connection() throws SQLException {
        return connect();
    }

    private static Connection connect() throws SQLException {
        var config = ConfigProvider.getConfig();
        return DriverManager.getConnection(setting(PostgresTestDatabase.DIRECT_URL),
                setting("quarkus.datasource.username"),
                config.getOptionalValue("quarkus.datasource.password", String.class)
                        .orElse(System.getProperty("quarkus.datasource.password", "")));
    }

    /** From the test JVM's system properties (set by PostgresTestDatabase), else from its configuration. */
    private static String setting(String name) {
        String value = System.getProperty(name);
        return value != null ? value : ConfigProvider.getConfig().getValue(name, String.class);
    }
}
