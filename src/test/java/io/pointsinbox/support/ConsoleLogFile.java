package io.pointsinbox.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;

import io.pointsinbox.messaging.ConsoleLogFilter;

/**
 * The log as the console writes it, readable by a test: a log file of its own, with the console's filter, enabled by a
 * test profile's settings and read from inside the application under test.
 */
public final class ConsoleLogFile {

    private ConsoleLogFile() {
    }

    /** Settings for a test profile: a new file under {@code target/}, named after {@code name}. */
    public static Map<String, String> settings(String name) {
        return Map.of("quarkus.log.file.enabled", "true",
                "quarkus.log.file.path", "target/" + name + "-" + System.nanoTime() + ".log",
                "quarkus.log.file.filter", ConsoleLogFilter.NAME);
    }

    /** Every line written so far. */
    public static List<String> lines() throws IOException {
        return Files.readAllLines(Path.of(ConfigProvider.getConfig().getValue("quarkus.log.file.path", String.class)));
    }
}
