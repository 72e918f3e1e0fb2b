package io.pointsinbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** The default concurrency follows the JDK, and POINTS_CONCURRENCY still wins over it. */
class DefaultConcurrencyTest {

    /** The line of application.properties that falls back to the JDK's default. */
    private static final Map<String, String> PROPERTIES = Map.of("points.concurrency",
            "${POINTS_CONCURRENCY:${points-inbox.default-concurrency}}");

    @Test
    void sixteenOnVirtualThreadsEightOnJava17() {
        assertEquals(8, DefaultConcurrency.forJava(17));
        assertEquals(16, DefaultConcurrency.forJava(21));
        assertEquals(16, DefaultConcurrency.forJava(25));
    }

    @Test
    void theServiceReadsTheDefaultOfTheJdkItRunsOn() {
        assertEquals(DefaultConcurrency.forJava(Runtime.version().feature()),
                build(Map.of()).getValue("points.concurrency", Integer.class));
    }

    @Test
    void theEnvironmentVariableOverridesIt() {
        assertEquals(3, build(Map.of("POINTS_CONCURRENCY", "3")).getValue("points.concurrency", Integer.class));
    }

    private static SmallRyeConfig build(Map<String, String> environment) {
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder().addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(PROPERTIES, "application.properties", 250))
                .withSources(new PropertiesConfigSource(environment, "environment", 300));
        new DefaultConcurrency().configBuilder(builder);
        return builder.build();
    }
}
