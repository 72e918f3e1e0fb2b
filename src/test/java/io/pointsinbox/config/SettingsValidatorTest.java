package io.pointsinbox.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** The service's settings checked as Quarkus checks them: while a configuration with the three mappings is built. */
class SettingsValidatorTest {

    @Test
    void theDefaultsAreValid() {
        SmallRyeConfig config = build(Map.of());
        assertEquals(16, config.getConfigMapping(PointsConfig.class).concurrency());
    }

    @Test
    void theBoundsThemselvesAreAccepted() {
        assertDoesNotThrow(() -> build(Map.of("points.concurrency", "256", "points.max-amount", "1000000000",
                "points.consumer", "a".repeat(100), "points.batch.max-size", "1", "points.batch.threads", "16",
                "points.retention.batch-size", "100000", "points.retention.broker-max-delivery-attempts", "1")));
    }

    @Test
    void everyValueOutOfRangeIsReportedAtOnceByVariableAndProperty() {
        Map<String, String> bad = Map.ofEntries(
                Map.entry("points.consumer", "Points Ledger"),
                Map.entry("points.address", " "),
                Map.entry("points.dead-letter-address", "\t"),
                Map.entry("points.max-amount", "1000000001"),
                Map.entry("points.concurrency", "0"),
                Map.entry("points.database-retry-interval", "0s"),
                Map.entry("points.batch.max-size", "1001"),
                Map.entry("points.batch.threads", "17"),
                Map.entry("points.retention.window", "-1s"),
                Map.entry("points.retention.batch-size", "0"),
                Map.entry("points.retention.broker-max-delivery-attempts", "0"));
        String problems = problems(bad);
        for (String expected : List.of(
                "POINTS_CONSUMER (points.consumer=Points Ledger) must be 1 to 100 lower-case letters",
                "POINTS_ADDRESS (points.address= ) must not be blank",
                "POINTS_DEAD_LETTER_ADDRESS (points.dead-letter-address=\t) must not be blank",
                "POINTS_MAX_AMOUNT (points.max-amount=1000000001) must be between 1 and 1000000000",
                "POINTS_CONCURRENCY (points.concurrency=0) must be between 1 and 256",
                "POINTS_DATABASE_RETRY_INTERVAL (points.database-retry-interval=PT0S) must be above zero",
                "POINTS_BATCH_MAX_SIZE (points.batch.max-size=1001) must be between 1 and 1000",
                "POINTS_BATCH_THREADS (points.batch.threads=17) must be between 1 and 16",
                "POINTS_RETENTION_WINDOW (points.retention.window=PT-1S) must be above zero",
                "POINTS_RETENTION_BATCH_SIZE (points.retention.batch-size=0) must be between 1 and 100000",
                "POINTS_RETENTION_BROKER_MAX_DELIVERY_ATTEMPTS (points.retention.broker-max-delivery-attempts=0) "
                        + "must be at least 1")) {
            assertTrue(problems.contains(expected), "expected <" + expected + "> among:\n" + problems);
        }
        assertEquals(11, problems.lines().count(), problems);
    }

    @Test
    void theBrokerTrustCertificatesMustBeAReadablePemFileOfCertificates() {
        assertTrue(build(Map.of()).getConfigMapping(PointsConfig.class).brokerTrustCertificates().isEmpty(), "unset");
        String ca = java.nio.file.Path.of("src/test/resources/tls/ca.pem").toAbsolutePath().toString();
        assertEquals(java.util.Optional.of(ca), build(Map.of("points.broker-trust-certificates", ca))
                .getConfigMapping(PointsConfig.class).brokerTrustCertificates());
        assertEquals("POINTS_BROKER_TRUST_CERTIFICATES (points.broker-trust-certificates=/nowhere/ca.pem) must be a "
                + "PEM file of CA certificates: no such file",
                problems(Map.of("points.broker-trust-certificates", "/nowhere/ca.pem")));
        String notPem = java.nio.file.Path.of("src/test/resources/tls/not-a-certificate.pem").toAbsolutePath()
                .toString();
        assertEquals("POINTS_BROKER_TRUST_CERTIFICATES (points.broker-trust-certificates=" + notPem + ") must be a "
                + "PEM file of CA certificates: no -----BEGIN CERTIFICATE----- in it",
                problems(Map.of("points.broker-trust-certificates", notPem)));
        String keyStore = java.nio.file.Path.of("src/test/resources/tls/broker.p12").toAbsolutePath().toString();
        assertTrue(problems(Map.of("points.broker-trust-certificates", keyStore)).startsWith(
                "POINTS_BROKER_TRUST_CERTIFICATES (points.broker-trust-certificates=" + keyStore + ") must be a "
                        + "PEM file of CA certificates"), "a PKCS #12 key store is not a PEM file");
    }

    @Test
    void theBrokerIdleTimeoutIsOffOrFromTwoSecondsToAnHour() {
        assertEquals(Duration.ofSeconds(30), build(Map.of()).getConfigMapping(PointsConfig.class).brokerIdleTimeout());
        for (String accepted : List.of("0s", "2s", "1h")) {
            assertDoesNotThrow(() -> build(Map.of("points.broker-idle-timeout", accepted)), accepted);
        }
        assertEquals("POINTS_BROKER_IDLE_TIMEOUT (points.broker-idle-timeout=PT1S) must be 0 (off) or from 2s to 1h",
                problems(Map.of("points.broker-idle-timeout", "1s")));
        assertEquals("POINTS_BROKER_IDLE_TIMEOUT (points.broker-idle-timeout=PT1H0.001S) must be 0 (off) or from 2s"
                + " to 1h", problems(Map.of("points.broker-idle-timeout", "3600001ms")));
    }

    @Test
    void theStallTimeoutIsOffOrFromFiveSecondsToAnHour() {
        assertEquals(Duration.ofSeconds(60), build(Map.of()).getConfigMapping(PointsConfig.class).stallTimeout());
        for (String accepted : List.of("0s", "5s", "1h")) {
            assertDoesNotThrow(() -> build(Map.of("points.stall-timeout", accepted)), accepted);
        }
        assertEquals("POINTS_STALL_TIMEOUT (points.stall-timeout=PT4S) must be 0 (off) or from 5s to 1h",
                problems(Map.of("points.stall-timeout", "4s")));
        assertEquals("POINTS_STALL_TIMEOUT (points.stall-timeout=PT1H0.001S) must be 0 (off) or from 5s to 1h",
                problems(Map.of("points.stall-timeout", "3600001ms")));
    }

    @Test
    void theDatabaseSocketTimeoutIsOffOrFromOneSecondToAnHour() {
        assertEquals(Duration.ofSeconds(90),
                build(Map.of()).getConfigMapping(PointsConfig.class).databaseSocketTimeout());
        for (String accepted : List.of("0s", "1s", "1h")) {
            assertDoesNotThrow(() -> build(Map.of("points.database-socket-timeout", accepted)), accepted);
        }
        assertEquals("POINTS_DATABASE_SOCKET_TIMEOUT (points.database-socket-timeout=PT0.5S) must be 0 (off) or from 1s"
                + " to 1h", problems(Map.of("points.database-socket-timeout", "500ms")));
    }

    @Test
    void theLargestMessageReadLeavesRoomForABodyAtItsLimit() {
        assertEquals(20480, build(Map.of()).getConfigMapping(PointsConfig.class).maxMessageSize());
        for (String accepted : List.of("17408", "67108864")) {
            assertDoesNotThrow(() -> build(Map.of("points.max-message-size", accepted)), accepted);
        }
        assertEquals("POINTS_MAX_MESSAGE_SIZE (points.max-message-size=17407) must be between 17408 and 67108864",
                problems(Map.of("points.max-message-size", "17407")));
        assertEquals("POINTS_MAX_MESSAGE_SIZE (points.max-message-size=67108865) must be between 17408 and 67108864",
                problems(Map.of("points.max-message-size", "67108865")));
    }

    @Test
    void theLinkCreditIsAtMostTheConnectorsOwn() {
        assertEquals(256, build(Map.of()).getConfigMapping(PointsConfig.class).linkCredit());
        for (String accepted : List.of("1", "1000")) {
            assertDoesNotThrow(() -> build(Map.of("points.link-credit", accepted)), accepted);
        }
        assertEquals("POINTS_LINK_CREDIT (points.link-credit=0) must be between 1 and 1000",
                problems(Map.of("points.link-credit", "0")));
        assertEquals("POINTS_LINK_CREDIT (points.link-credit=1001) must be between 1 and 1000",
                problems(Map.of("points.link-credit", "1001")));
    }

    @Test
    void aConsumerNameLongerThan100CharactersIsRefused() {
        assertTrue(problems(Map.of("points.consumer", "a".repeat(101))).startsWith("POINTS_CONSUMER"));
    }

    private static String problems(Map<String, String> values) {
        ConfigValidationException refused = assertThrows(ConfigValidationException.class, () -> build(values));
        return IntStream.range(0, refused.getProblemCount()).mapToObj(i -> refused.getProblem(i).getMessage())
                .collect(Collectors.joining("\n"));
    }

    private static SmallRyeConfig build(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(values, "test", 500))
                // Quarkus' reading of "10s" and "7d"
                .withConverter(Duration.class, 200, new DurationConverter())
                .withMapping(PointsConfig.class)
                .withMapping(BatchConfig.class)
                .withMapping(RetentionConfig.class)
                .withValidator(new SettingsValidator())
                .build();
    }
}
