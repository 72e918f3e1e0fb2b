package io.pointsinbox.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Points the tests at a database of their own on the local PostgreSQL, creating it when missing, so that tests
 * never touch other data. Host, port and credentials follow the usual QUARKUS_DATASOURCE_* variables.
 */
public class PostgresTestDatabase implements QuarkusTestResourceLifecycleManager {

    public static final String DATABASE = env("POINTS_TEST_DATABASE", "points_inbox_test");

    @Override
    public Map<String, String> start() {
        String host = env("POINTS_TEST_PG_HOST", "127.0.0.1");
        String port = env("POINTS_TEST_PG_PORT", "5432");
        String user = env("QUARKUS_DATASOURCE_USERNAME", "postgres");
        String password = env("QUARKUS_DATASOURCE_PASSWORD", "");
        String server = "jdbc:postgresql://" + host + ":" + port + "/";
        createIfMissing(server + "postgres", user, password);
        return Map.of(
                "quarkus.datasource.jdbc.url", server + DATABASE,
                "quarkus.datasource.username", user,
                "quarkus.datasource.password", password);
    }

    @Override
    public void stop() {
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
