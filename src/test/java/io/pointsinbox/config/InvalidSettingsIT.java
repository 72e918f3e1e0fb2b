package io.pointsinbox.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AppProcess;

/** The packaged service refuses to start on settings out of range, naming each, before it reaches out to anything. */
class InvalidSettingsIT {

    private static final Path LOGS = Path.of("target", "invalid-settings-it");

    @Test
    void settingsOutOfRangeStopTheStartNamingEveryOne() throws Exception {
        AppProcess.clearLogs(LOGS);
        Path log = LOGS.resolve("app.log");
        // No broker and no database: the configuration is checked before either is contacted.
        AppProcess app = AppProcess.start(Map.of("POINTS_CONCURRENCY", "0", "POINTS_BATCH_THREADS", "17",
                "QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/none"), log);
        OptionalInt exit = app.awaitExit(Duration.ofSeconds(60));
        String output = Files.readString(log);
        assertTrue(exit.isPresent(), "still running 60 s after start with invalid settings:\n" + output);
        assertNotEquals(0, exit.getAsInt(), output);
        assertTrue(output.contains("POINTS_CONCURRENCY (points.concurrency=0) must be between 1 and 256"), output);
        assertTrue(output.contains("POINTS_BATCH_THREADS (points.batch.threads=17) must be between 1 and 16"), output);
    }

    @Test
    void aValueOfTheWrongTypeIsOneLineNamingTheVariableNotAStackTrace() throws Exception {
        AppProcess.clearLogs(LOGS);
        Path log = LOGS.resolve("types.log");
        AppProcess app = AppProcess.start(Map.of("POINTS_CONCURRENCY", "eight", "POINTS_RETENTION_WINDOW", "a week",
                "QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/none"), log);
        OptionalInt exit = app.awaitExit(Duration.ofSeconds(60));
        String output = Files.readString(log);
        assertTrue(exit.isPresent(), "still running 60 s after start with malformed settings:\n" + output);
        assertNotEquals(0, exit.getAsInt(), output);
        assertTrue(output.contains("POINTS_CONCURRENCY (points.concurrency=eight) must be a whole number"), output);
        assertTrue(output.contains("POINTS_RETENTION_WINDOW (points.retention.window=a week) must be a duration"),
                output);
        assertFalse(output.contains("\tat "), "no stack trace:\n" + output);
        assertFalse(output.contains("smallrye.messaging.worker"), "no internal property named:\n" + output);
    }

    @Test
    void aMissingTokenKeyIsOneLineNamingTheVariable() throws Exception {
        AppProcess.clearLogs(LOGS);
        Path log = LOGS.resolve("jwt.log");
        // The key is checked as the application starts, after the schema migration: it needs a database.
        Map<String, String> environment = new java.util.HashMap<>(Map.of(
                "QUARKUS_DATASOURCE_JDBC_URL", databaseOfItsOwn(), "QUARKUS_DATASOURCE_USERNAME", "postgres",
                "AMQP_HOST", "127.0.0.1", "AMQP_PORT", "1"));
        environment.put("POINTS_JWT_PUBLIC_KEY_LOCATION", "");
        AppProcess app = AppProcess.start(environment, log);
        OptionalInt exit = app.awaitExit(Duration.ofSeconds(90));
        String output = Files.readString(log);
        assertTrue(exit.isPresent(), "still running 90 s after start without a key:\n" + output);
        assertNotEquals(0, exit.getAsInt(), output);
        assertTrue(output.contains("POINTS_JWT_PUBLIC_KEY_LOCATION is not set"), output);
    }

    private static String databaseOfItsOwn() throws java.sql.SQLException {
        int port = io.pointsinbox.support.EmbeddedDatabase.answers("127.0.0.1", 5432)
                && !io.pointsinbox.support.EmbeddedDatabase.forced() ? 5432
                        : io.pointsinbox.support.EmbeddedDatabase.startForTests();
        String server = "jdbc:postgresql://127.0.0.1:" + port + "/";
        try (var connection = java.sql.DriverManager.getConnection(server + "postgres", "postgres", "");
                var statement = connection.createStatement()) {
            statement.execute("drop database if exists points_inbox_settings_it");
            statement.execute("create database points_inbox_settings_it");
        }
        return server + "points_inbox_settings_it";
    }
}
