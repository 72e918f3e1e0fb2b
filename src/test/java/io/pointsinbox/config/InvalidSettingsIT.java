package io.pointsinbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        // No broker and no database: the configuration is checked before either is contacted.
        String output = refusedStart("app.log", Map.of("POINTS_CONCURRENCY", "0", "POINTS_BATCH_THREADS", "17",
                "QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/none"), 60);
        assertTrue(output.contains("POINTS_CONCURRENCY (points.concurrency=0) must be between 1 and 256"), output);
        assertTrue(output.contains("POINTS_BATCH_THREADS (points.batch.threads=17) must be between 1 and 16"), output);
    }

    @Test
    void aValueOfTheWrongTypeIsOneLineNamingTheVariableNotAStackTrace() throws Exception {
        String output = refusedStart("types.log", Map.of("POINTS_CONCURRENCY", "eight", "POINTS_RETENTION_WINDOW",
                "a week", "QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/none"), 60);
        assertTrue(output.contains("POINTS_CONCURRENCY (points.concurrency=eight) must be a whole number"), output);
        assertTrue(output.contains("POINTS_RETENTION_WINDOW (points.retention.window=a week) must be a duration"),
                output);
        assertFalse(output.contains("\tat "), "no stack trace:\n" + output);
        assertFalse(output.contains("smallrye.messaging.worker"), "no internal property named:\n" + output);
    }

    @Test
    void quarkusSettingsTheReadmeDocumentsAreNamedByTheirVariableWhenOutOfRange() throws Exception {
        // Without the rules: a pool of 0 and an unknown policy fail with a stack trace once used, a negative shutdown
        // timeout is taken silently.
        String output = refusedStart("quarkus.log", Map.of("QUARKUS_DATASOURCE_JDBC_URL",
                "jdbc:postgresql://127.0.0.1:1/none", "POINTS_DB_POOL_SIZE", "0", "POINTS_SHUTDOWN_TIMEOUT", "-5s",
                "POINTS_SHUTDOWN_DELAY", "-1s", "POINTS_READ_POLICY", "whatever",
                "POINTS_ADMIN_POLICY", "nobody", "QUARKUS_FLYWAY_CONNECT_RETRIES", "-1",
                "QUARKUS_TRANSACTION_MANAGER_DEFAULT_TRANSACTION_TIMEOUT", "0s", "PORT", "http",
                "POINTS_LOG_LEVEL", "LOUD"), 60);
        for (String expected : java.util.List.of(
                "POINTS_DB_POOL_SIZE (quarkus.datasource.jdbc.max-size=0) must be a whole number from 1 to 10000",
                "POINTS_SHUTDOWN_TIMEOUT (quarkus.shutdown.timeout=-5s) must be a duration of 0s or more",
                "POINTS_SHUTDOWN_DELAY (quarkus.shutdown.delay=-1s) must be a duration of 0s or more",
                "POINTS_READ_POLICY (quarkus.http.auth.permission.readers.policy=whatever) must be one of permit,",
                "POINTS_ADMIN_POLICY (quarkus.http.auth.permission.ops.policy=nobody) must be one of permit,",
                "QUARKUS_FLYWAY_CONNECT_RETRIES (quarkus.flyway.connect-retries=-1) must be a whole number, 0 or more",
                "QUARKUS_TRANSACTION_MANAGER_DEFAULT_TRANSACTION_TIMEOUT (quarkus.transaction-manager."
                        + "default-transaction-timeout=0s) must be a duration above zero",
                // Of the wrong type: Quarkus names the property, this line the variable.
                "PORT (quarkus.http.port=http) must be a whole number from 0 to 65535",
                "POINTS_LOG_LEVEL (quarkus.log.category.\"io.pointsinbox\".level=LOUD) must be a log level")) {
            assertTrue(output.contains(expected), "expected <" + expected + "> in:\n" + output);
            // A setting read by more than one part of Quarkus is still reported once.
            assertEquals(output.indexOf(expected), output.lastIndexOf(expected), "once: " + expected + "\n" + output);
        }
        assertFalse(output.contains("\tat "), "no stack trace:\n" + output);
    }

    @Test
    void aMissingTokenKeyOrAnEmptyIssuerIsOneLineNamingTheVariable() throws Exception {
        // The key is checked as the application starts, after the schema migration: it needs a database.
        String output = refusedStart("jwt.log", Map.of("QUARKUS_DATASOURCE_JDBC_URL", databaseOfItsOwn(),
                "QUARKUS_DATASOURCE_USERNAME", "postgres", "AMQP_HOST", "127.0.0.1", "AMQP_PORT", "1",
                "POINTS_JWT_PUBLIC_KEY_LOCATION", ""), 90);
        assertTrue(output.contains("POINTS_JWT_PUBLIC_KEY_LOCATION is not set"), output);
        // Refused before the channels start: no connection attempt, so no connector error under a closing client.
        assertFalse(output.contains("Establishing connection with AMQP broker"), output);
        assertFalse(output.contains(" ERROR "), "no error logged before the reason:\n" + output);
        assertFalse(output.contains("\tat "), "no stack trace:\n" + output);

        // An empty issuer: without the check, "Failed to load config value ... for: mp.jwt.verify.issuer".
        String issuer = refusedStart("issuer.log", Map.of("QUARKUS_DATASOURCE_JDBC_URL", databaseOfItsOwn(),
                "QUARKUS_DATASOURCE_USERNAME", "postgres", "AMQP_HOST", "127.0.0.1", "AMQP_PORT", "1",
                "POINTS_JWT_PUBLIC_KEY_LOCATION", Path.of("src/test/resources/jwt/publicKey.pem").toAbsolutePath()
                        .toString(), "POINTS_JWT_ISSUER", ""), 90);
        assertTrue(issuer.contains("POINTS_JWT_ISSUER is set but empty"), issuer);
        assertFalse(issuer.contains("Establishing connection with AMQP broker"), issuer);
        assertFalse(issuer.contains("\tat "), "no stack trace:\n" + issuer);
    }

    @Test
    void brokerSettingsThatTheConnectorWouldRetryOrMisreadAreOneLineBeforeAnyConnection() throws Exception {
        // Without the check: a port out of range retried for ever with readiness down, "maybe" read as false (a
        // plain connection where TLS was meant, plain log lines where JSON was), and the interval a conversion stack
        // trace from the connector.
        String output = refusedStart("broker.log", Map.of("QUARKUS_DATASOURCE_JDBC_URL", databaseOfItsOwn(),
                "QUARKUS_DATASOURCE_USERNAME", "postgres", "AMQP_HOST", "", "AMQP_PORT", "70000",
                "AMQP_USE_SSL", "maybe", "AMQP_RECONNECT_INTERVAL", "abc", "POINTS_LOG_JSON", "maybe",
                "POINTS_JWT_PUBLIC_KEY_LOCATION",
                Path.of("src/test/resources/jwt/publicKey.pem").toAbsolutePath().toString()), 90);
        assertTrue(output.contains("AMQP_HOST (amqp-host) is not set: give the AMQP broker's host name; "
                + "AMQP_PORT (amqp-port=70000) must be between 1 and 65535; "
                + "AMQP_RECONNECT_INTERVAL (amqp-reconnect-interval=abc) must be a whole number (seconds); "
                + "AMQP_USE_SSL (amqp-use-ssl=maybe) must be true or false; "
                + "POINTS_LOG_JSON (quarkus.log.console.json.enabled=maybe) must be true or false"), output);
        assertFalse(output.contains("Establishing connection with AMQP broker"), output);
        assertFalse(output.contains(" ERROR "), "no error logged before the reason:\n" + output);
        assertFalse(output.contains("\tat "), "no stack trace:\n" + output);
    }

    @Test
    void aPoolerThatSharesSessionsIsRefusedNamingTheFix() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.pointsinbox.support.Pgbouncer.installed(),
                "no pgbouncer on this machine (apt-get install pgbouncer)");
        databaseOfItsOwn();
        int pooler = io.pointsinbox.support.Pgbouncer.start(io.pointsinbox.support.Pgbouncer.Mode.TRANSACTION);
        String output = refusedStart("pooler.log", Map.of("QUARKUS_DATASOURCE_JDBC_URL",
                "jdbc:postgresql://127.0.0.1:" + pooler + "/points_inbox_settings_it",
                "QUARKUS_DATASOURCE_USERNAME", "postgres", "AMQP_HOST", "127.0.0.1", "AMQP_PORT", "1",
                "POINTS_JWT_PUBLIC_KEY_LOCATION", Path.of("src/test/resources/jwt/publicKey.pem").toAbsolutePath()
                        .toString()), 90);
        assertTrue(output.contains("The database connections share sessions with other connections"), output);
        assertTrue(output.contains("Add prepareThreshold=0 to QUARKUS_DATASOURCE_JDBC_URL"), output);
        assertFalse(output.contains("Establishing connection with AMQP broker"), "refused before consuming:\n" + output);
    }

    /** Starts the packaged service with {@code environment}, asserts that it exits non-zero, and answers its log. */
    private static String refusedStart(String logName, Map<String, String> environment, int seconds)
            throws Exception {
        AppProcess.clearLogs(LOGS);
        Path log = LOGS.resolve(logName);
        OptionalInt exit = AppProcess.start(environment, log).awaitExit(Duration.ofSeconds(seconds));
        String output = Files.readString(log);
        assertTrue(exit.isPresent(), "still running " + seconds + " s after start:\n" + output);
        assertNotEquals(0, exit.getAsInt(), output);
        return output;
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
