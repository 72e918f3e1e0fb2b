package io.pointsinbox.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import org.flywaydb.core.Flyway;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Points the tests at a database of their own on the local PostgreSQL, creating it when missing, so that tests
 * never touch other data. The application reaches it through a {@link TcpProxy} that tests can cut to play a
 * database outage; the tests' own reads use the direct URL ({@value #DIRECT_URL}). When no PostgreSQL answers, an
 * {@link EmbeddedDatabase} takes its place.
 */
public class PostgresTestDatabase implements QuarkusTestResourceLifecycleManager {

    public static final String DATABASE = env("POINTS_TEST_DATABASE", "points_inbox_test");
    public static final String DIRECT_URL = "test.direct-jdbc-url";

    private static volatile TcpProxy proxy;

    /** The proxy between the application and PostgreSQL. */
    public static TcpProxy proxy() {
        return proxy;
    }

    /**
     * The PostgreSQL the tests use: {@code POINTS_TEST_PG_HOST}:{@code POINTS_TEST_PG_PORT} (127.0.0.1:5432) when it
     * answers, else an {@link EmbeddedDatabase}.
     */
    public static java.net.InetSocketAddress server() {
        String host = env("POINTS_TEST_PG_HOST", "127.0.0.1");
        int port = Integer.parseInt(env("POINTS_TEST_PG_PORT", "5432"));
        if (EmbeddedDatabase.forced() || !EmbeddedDatabase.answers(host, port)) {
            return java.net.InetSocketAddress.createUnresolved("127.0.0.1", EmbeddedDatabase.startForTests());
        }
        return java.net.InetSocketAddress.createUnresolved(host, port);
    }

    /** The database user of the tests ({@code QUARKUS_DATASOURCE_USERNAME}, else {@code postgres}). */
    public static String user() {
        return env("QUARKUS_DATASOURCE_USERNAME", "postgres");
    }

    /** The password of that user ({@code QUARKUS_DATASOURCE_PASSWORD}, else none). */
    public static String password() {
        return env("QUARKUS_DATASOURCE_PASSWORD", "");
    }

    /**
     * Closes the tests' database to new sessions and ends those it has, as an administrator does before maintenance
     * ({@code ALTER DATABASE ... ALLOW_CONNECTIONS false}): every new connection is then refused with SQL state
     * {@code 55000}. With {@code false}, opens it again.
     */
    public static void closeToNewSessions(boolean closed) {
        try (Connection admin = DriverManager.getConnection(url("postgres"), user(), password());
                Statement statement = admin.createStatement()) {
            statement.execute("alter database \"" + DATABASE + "\" allow_connections " + !closed);
            if (closed) {
                statement.execute("select pg_terminate_backend(pid) from pg_stat_activity where datname = '" + DATABASE
                        + "' and pid <> pg_backend_pid()");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot " + (closed ? "close" : "open") + " the test database", e);
        }
    }

    /** What the driver throws when it opens a connection to a database closed to new sessions (SQL state 55000). */
    public static SQLException refusedConnection() {
        String closedDatabase = DATABASE + "_closed";
        try (Connection admin = DriverManager.getConnection(url("postgres"), user(), password());
                Statement statement = admin.createStatement();
                ResultSet exists = statement.executeQuery("select 1 from pg_database where datname = '"
                        + closedDatabase + "'")) {
            if (!exists.next()) {
                statement.execute("create database \"" + closedDatabase + "\" allow_connections false");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare a database closed to new sessions", e);
        }
        try (Connection refused = DriverManager.getConnection(url(closedDatabase), user(), password())) {
            throw new IllegalStateException("a database closed to new sessions let a connection in");
        } catch (SQLException e) {
            return e;
        }
    }

    private static String url(String database) {
        java.net.InetSocketAddress address = server();
        return "jdbc:postgresql://" + address.getHostString() + ":" + address.getPort() + "/" + database;
    }

    /** Brings the database at {@code jdbcUrl} to the service's schema, as the service's start-up migration does. */
    public static void migrate(String jdbcUrl) {
        Flyway.configure().dataSource(jdbcUrl, user(), password()).locations("classpath:db/migration").load().migrate();
    }

    @Override
    public Map<String, String> start() {
        java.net.InetSocketAddress address = server();
        String host = address.getHostString();
        String port = String.valueOf(address.getPort());
        String user = user();
        String password = env("QUARKUS_DATASOURCE_PASSWORD", "");
        String server = "jdbc:postgresql://" + host + ":" + port + "/";
        createIfMissing(server + "postgres", user, password);
        try {
            proxy = new TcpProxy(host, Integer.parseInt(port));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot start the database proxy", e);
        }
        // The tests' own reads run in the test JVM, which is not the application's when it is packaged.
        System.setProperty(DIRECT_URL, server + DATABASE);
        System.setProperty("quarkus.datasource.username", user);
        System.setProperty("quarkus.datasource.password", password);
        return Map.of(
                "quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + DATABASE,
                DIRECT_URL, server + DATABASE,
                "quarkus.datasource.username", user,
                "quarkus.datasource.password", password,
                // The issuer key the tests sign with, for the packaged application (the test profile has its own).
                "mp.jwt.verify.publickey.location",
                java.nio.file.Path.of("src/test/resources/jwt/publicKey.pem").toAbsolutePath().toString(),
                // A packaged application left running by a Quarkus integration test shares this database with the
                // tests that follow: it must not delete the old inbox rows they plant (the test profile agrees).
                "points.retention.enabled", "false");
    }

    @Override
    public void stop() {
        try {
            if (proxy != null) {
                proxy.close();
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void createIfMissing(String adminUrl, String user, String password) {
        try (Connection connection = DriverManager.getConnection(adminUrl, user, password);
                PreparedStatement exists = connection.prepareStatement("select 1 from pg_database where datname = ?")) {
            exists.setString(1, DATABASE);
            try (ResultSet rs = exists.executeQuery()) {
                if (!rs.next()) {
                    try (Statement create = connection.createStatement()) {
                        create.execute("create database \"" + DATABASE + "\"");
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach PostgreSQL at " + adminUrl + " to prepare the test database", e);
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
