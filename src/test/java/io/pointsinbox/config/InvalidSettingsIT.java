package io.pointsinbox.config;

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
}
