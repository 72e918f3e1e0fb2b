package io.pointsinbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class StartupChecksTest {

    @Test
    void aRetentionWindowShorterThanTheRedeliveryBudgetIsRefusedNamingTheSettings() {
        String problem = StartupChecks.retentionProblem(Duration.ofDays(1), Duration.ofDays(3)).orElseThrow();
        assertTrue(problem.contains("POINTS_RETENTION_WINDOW") && problem.contains("POINTS_RETENTION_REDRIVE_HORIZON")
                && problem.contains("POINTS_RETENTION_BROKER_MAX_DELIVERY_ATTEMPTS"), problem);
        assertTrue(problem.contains("(points.retention.window=1d) is shorter than the redelivery budget 3d ="),
                "the durations as a setting writes them: " + problem);
    }

    @Test
    void brokerTrustCertificatesWithoutTlsAreRefusedNamingTheSettings() {
        String problem = StartupChecks.brokerTrustProblem(true, false).orElseThrow();
        assertTrue(problem.startsWith("POINTS_BROKER_TRUST_CERTIFICATES (points.broker-trust-certificates) is set but "
                + "the broker connection does not use TLS: set AMQP_USE_SSL=true"), problem);
        assertTrue(StartupChecks.brokerTrustProblem(true, true).isEmpty(), "with TLS");
        assertTrue(StartupChecks.brokerTrustProblem(false, false).isEmpty(), "neither");
        assertTrue(StartupChecks.brokerTrustProblem(false, true).isEmpty(), "TLS with the JVM's trust store");
    }

    @Test
    void lateSettingsOutOfRangeOrOfTheWrongTypeAreRefusedEachByItsVariable() {
        Map<String, String> settings = Map.of("amqp-host", "broker.example", "amqp-port", "70000",
                "amqp-use-ssl", "maybe", "amqp-reconnect-attempts", "-5", "amqp-reconnect-interval", "abc",
                "quarkus.log.console.json.enabled", "yes please");
        String problem = StartupChecks.lateSettingsProblem(key -> Optional.ofNullable(settings.get(key)), true)
                .orElseThrow();
        assertEquals("AMQP_PORT (amqp-port=70000) must be between 1 and 65535; "
                + "AMQP_RECONNECT_ATTEMPTS (amqp-reconnect-attempts=-5) must be between 1 and 2147483647; "
                + "AMQP_RECONNECT_INTERVAL (amqp-reconnect-interval=abc) must be a whole number (seconds); "
                + "AMQP_USE_SSL (amqp-use-ssl=maybe) must be true or false; "
                + "POINTS_LOG_JSON (quarkus.log.console.json.enabled=yes please) must be true or false", problem);
        for (String[] bad : new String[][] {{"amqp-port", "0"}, {"amqp-port", "abc"}, {"amqp-port", ""},
                {"amqp-reconnect-attempts", "0"}, {"amqp-reconnect-interval", "0"},
                {"amqp-reconnect-interval", "3601"}, {"amqp-use-ssl", "ture"}}) {
            Map<String, String> one = Map.of("amqp-host", "broker.example", bad[0], bad[1]);
            String refused = StartupChecks.lateSettingsProblem(key -> Optional.ofNullable(one.get(key)), true)
                    .orElseThrow(() -> new AssertionError(bad[0] + "=" + bad[1] + " should be refused"));
            String variable = bad[0].toUpperCase(java.util.Locale.ROOT).replace('-', '_');
            assertTrue(refused.startsWith(variable + " (" + bad[0] + "=" + bad[1] + ") must be "), refused);
        }
    }

    @Test
    void lateSettingsInRangeAreAcceptedAndABrokerHostIsRequiredInProductionOnly() {
        Map<String, String> good = Map.of("amqp-host", "broker.example", "amqp-port", "5671", "amqp-use-ssl", "TRUE",
                "amqp-reconnect-attempts", "2147483647", "amqp-reconnect-interval", " 1 ",
                "quarkus.log.console.json.enabled", "on");
        assertEquals(Optional.empty(),
                StartupChecks.lateSettingsProblem(key -> Optional.ofNullable(good.get(key)), true));
        assertEquals(Optional.empty(), StartupChecks.lateSettingsProblem(key -> Optional.empty(), false),
                "dev and test: Dev Services or the tests give the broker");
        assertEquals(Optional.of("AMQP_HOST (amqp-host) is not set: give the AMQP broker's host name"),
                StartupChecks.lateSettingsProblem(key -> Optional.empty(), true));
        assertEquals(Optional.of("AMQP_HOST (amqp-host) is not set: give the AMQP broker's host name"),
                StartupChecks.lateSettingsProblem(key -> Optional.ofNullable(Map.of("amqp-host", " ").get(key)), true));
        Map<String, String> channelHost = Map.of("mp.messaging.incoming.points-granted.host", "broker.example");
        assertEquals(Optional.empty(),
                StartupChecks.lateSettingsProblem(key -> Optional.ofNullable(channelHost.get(key)), true),
                "the channel's own host setting");
    }

    @Test
    void aWindowCoveringTheBudgetIsAccepted() {
        assertTrue(StartupChecks.retentionProblem(Duration.ofDays(7), Duration.ofDays(3)).isEmpty());
    }

    @Test
    void aDeadLetterTimeoutThatIsZeroOrReachesTheTransactionTimeoutIsRefusedNamingTheSetting() {
        Duration transaction = Duration.ofSeconds(60);
        for (Duration timeout : new Duration[] {Duration.ZERO, Duration.ofSeconds(-1), transaction,
                Duration.ofMinutes(5)}) {
            String problem = StartupChecks.deadLetterTimeoutProblem(timeout, transaction).orElseThrow(
                    () -> new AssertionError(timeout + " should be refused"));
            assertTrue(problem.contains("POINTS_DEAD_LETTER_TIMEOUT"), problem);
        }
    }

    @Test
    void aDeadLetterTimeoutBelowTheTransactionTimeoutIsAccepted() {
        assertTrue(StartupChecks.deadLetterTimeoutProblem(Duration.ofSeconds(10), Duration.ofSeconds(60)).isEmpty());
    }

    @Test
    void aDatabaseSocketTimeoutIsOffOrAboveTheTransactionTimeout() {
        Duration transaction = Duration.ofSeconds(60);
        assertTrue(StartupChecks.socketTimeoutProblem(Duration.ZERO, transaction).isEmpty());
        assertTrue(StartupChecks.socketTimeoutProblem(Duration.ofSeconds(61), transaction).isEmpty());
        for (Duration timeout : new Duration[] {Duration.ofSeconds(60), Duration.ofSeconds(30)}) {
            String problem = StartupChecks.socketTimeoutProblem(timeout, transaction).orElseThrow(
                    () -> new AssertionError(timeout + " should be refused"));
            assertTrue(problem.startsWith("POINTS_DATABASE_SOCKET_TIMEOUT (points.database-socket-timeout="), problem);
            assertTrue(problem.contains("above the transaction timeout"), problem);
        }
    }

    @Test
    void aMissingTokenKeyIsRefusedNamingTheEnvironmentVariable() {
        for (String location : new String[] {null, "", " ", StartupChecks.NO_KEY}) {
            String problem = StartupChecks.jwtKeyProblem(location, null).orElseThrow(
                    () -> new AssertionError("'" + location + "' should be refused"));
            assertTrue(problem.startsWith("POINTS_JWT_PUBLIC_KEY_LOCATION is not set"), problem);
        }
    }

    @Test
    void anEmptyIssuerIsRefusedNamingTheEnvironmentVariable() {
        for (String issuer : new String[] {null, "", " ", StartupChecks.NO_ISSUER}) {
            String problem = StartupChecks.jwtIssuerProblem(issuer).orElseThrow(
                    () -> new AssertionError("'" + issuer + "' should be refused"));
            assertTrue(problem.startsWith("POINTS_JWT_ISSUER is set but empty"), problem);
        }
        assertTrue(StartupChecks.jwtIssuerProblem("https://points-inbox.local/issuer").isEmpty());
        assertTrue(StartupChecks.jwtIssuerProblem("issuer-without-scheme").isEmpty());
    }

    @Test
    void aKeyLocationOrAnInlineKeyIsAccepted() {
        assertTrue(StartupChecks.jwtKeyProblem("file:/etc/keys/issuer.pem", null).isEmpty());
        assertTrue(StartupChecks.jwtKeyProblem("https://issuer.example/jwks", null).isEmpty());
        assertTrue(StartupChecks.jwtKeyProblem(StartupChecks.NO_KEY, "MIIBIjANBgkq...").isEmpty());
    }

    @Test
    void settingTypesTellMalformedValuesFromWellFormedOnes() {
        assertTrue(SettingTypes.valid("points.concurrency", "8"));
        assertTrue(!SettingTypes.valid("points.concurrency", "eight"));
        assertTrue(SettingTypes.valid("points.retention.window", "7d"));
        assertTrue(SettingTypes.valid("points.retention.window", "PT10S"));
        assertTrue(!SettingTypes.valid("points.retention.window", "a week"));
        assertTrue(!SettingTypes.valid("points.stall-timeout", "a minute"), "a stall timeout that is not a duration");
        assertTrue(SettingTypes.valid("points.batch.enabled", "true"));
        assertTrue(!SettingTypes.valid("points.batch.enabled", "maybe"));
    }

    @Test
    void theHttpPortIsAWholeNumberFromZeroToTheLastPortNamedByItsVariable() {
        for (String bad : new String[] {"-1", "65536", "http", ""}) {
            assertEquals(Optional.of("PORT (quarkus.http.port=" + bad + ") must be a whole number from 0 to 65535"),
                    SettingTypes.quarkusProblem("quarkus.http.port", bad), bad);
        }
        for (String good : new String[] {"0", "8080", " 65535 "}) {
            assertEquals(Optional.empty(), SettingTypes.quarkusProblem("quarkus.http.port", good), good);
        }
        assertEquals(Optional.empty(), SettingTypes.quarkusProblem("quarkus.http.host", "anything"), "no rule");
    }

    @Test
    void aPoolSmallerThanTwoConnectionsPerTransactionIsRefusedNamingBothSettings() {
        String perMessage = StartupChecks.poolProblem(15, false, 8, 2).orElseThrow();
        assertTrue(perMessage.startsWith("POINTS_DB_POOL_SIZE (quarkus.datasource.jdbc.max-size=15)")
                && perMessage.contains("POINTS_CONCURRENCY (points.concurrency=8)"), perMessage);
        String batched = StartupChecks.poolProblem(3, true, 64, 2).orElseThrow();
        assertTrue(batched.contains("POINTS_BATCH_THREADS (points.batch.threads=2)"), batched);
    }

    @Test
    void aPoolOfTwoConnectionsPerTransactionIsAccepted() {
        assertTrue(StartupChecks.poolProblem(16, false, 8, 2).isEmpty());
        assertTrue(StartupChecks.poolProblem(4, true, 64, 2).isEmpty(), "batched workers only wait");
    }
}
