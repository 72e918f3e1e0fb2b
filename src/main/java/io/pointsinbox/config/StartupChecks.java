package io.pointsinbox.config;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;

import org.eclipse.microprofile.config.Config;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * Refuses to start on settings that are each valid but do not work together, naming the settings to change. It runs
 * before the messaging channels start (their observer has priority {@code LIBRARY_BEFORE}): a refused start opens no
 * broker connection, so the one-line reason is not preceded by the connector's errors about a client closed under it.
 */
@Singleton
public class StartupChecks {

    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, Config config,
            PointsConfig points, RetentionConfig retention, BatchConfig batch) {
        lateSettingsProblem(name -> config.getOptionalValue(name, String.class),
                LaunchMode.current() == LaunchMode.NORMAL).ifPresent(StartupChecks::refuse);
        retentionProblem(retention.window(), retention.redeliveryBudget()).ifPresent(StartupChecks::refuse);
        jwtKeyProblem(config.getOptionalValue("mp.jwt.verify.publickey.location", String.class).orElse(null),
                config.getOptionalValue("mp.jwt.verify.publickey", String.class).orElse(null))
                .ifPresent(StartupChecks::refuse);
        jwtIssuerProblem(config.getOptionalValue("mp.jwt.verify.issuer", String.class).orElse(null))
                .ifPresent(StartupChecks::refuse);
        java.time.Duration transactionTimeout = TransactionTimeout.of(config);
        deadLetterTimeoutProblem(points.deadLetterTimeout(), transactionTimeout).ifPresent(StartupChecks::refuse);
        socketTimeoutProblem(points.databaseSocketTimeout(), transactionTimeout).ifPresent(StartupChecks::refuse);
        boolean tls = config.getOptionalValue("mp.messaging.incoming.points-granted.use-ssl", Boolean.class)
                .or(() -> config.getOptionalValue("amqp-use-ssl", Boolean.class)).orElse(false);
        brokerTrustProblem(points.brokerTrustCertificates().isPresent(), tls).ifPresent(StartupChecks::refuse);
        int pool = config.getOptionalValue("quarkus.datasource.jdbc.max-size", Integer.class).orElse(20);
        poolProblem(pool, batch.enabled(), points.concurrency(), batch.threads()).ifPresent(StartupChecks::refuse);
    }

    /** The prefix of the inbound channel's own settings, which the connector prefers to the global {@code amqp-...}. */
    private static final String CHANNEL = "mp.messaging.incoming.points-granted.";

    /**
     * Settings that their libraries read only when they use them, or read leniently: a broker port out of range would
     * be retried for ever with readiness down, a misspelt {@code AMQP_USE_SSL} silently read as {@code false} (a plain
     * connection where TLS was meant), a bad reconnect setting fail the channel with a stack trace, and
     * {@code POINTS_LOG_JSON=maybe} be read as {@code false}. (The HTTP port is Quarkus's own setting, read by a
     * configuration mapping: {@link SettingTypes} refuses it, by {@code PORT}, before the application starts.) Every
     * problem found is named in the one line, by its environment variable; a missing broker host only in production
     * ({@code normal} launch mode), where no Dev Services provide one.
     */
    static java.util.Optional<String> lateSettingsProblem(
            java.util.function.Function<String, java.util.Optional<String>> setting, boolean production) {
        java.util.List<String> problems = new java.util.ArrayList<>();
        boolean host = setting.apply("amqp-host").or(() -> setting.apply(CHANNEL + "host"))
                .filter(h -> !h.isBlank()).isPresent();
        if (production && !host) {
            problems.add("AMQP_HOST (amqp-host) is not set: give the AMQP broker's host name");
        }
        wholeNumber(problems, setting, "amqp-port", "AMQP_PORT", 1, 65535, "");
        wholeNumber(problems, setting, "amqp-reconnect-attempts", "AMQP_RECONNECT_ATTEMPTS", 1, Integer.MAX_VALUE, "");
        wholeNumber(problems, setting, "amqp-reconnect-interval", "AMQP_RECONNECT_INTERVAL", 1, 3600, " (seconds)");
        trueOrFalse(problems, setting, "amqp-use-ssl", "AMQP_USE_SSL");
        trueOrFalse(problems, setting, "quarkus.log.console.json.enabled", "POINTS_LOG_JSON");
        return problems.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(String.join("; ", problems));
    }

    private static void wholeNumber(java.util.List<String> problems,
            java.util.function.Function<String, java.util.Optional<String>> setting, String property, String variable,
            long min, long max, String unit) {
        setting.apply(property).ifPresent(value -> {
            long number;
            try {
                number = Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                problems.add(SettingsValidator.named(variable, property, value) + " must be a whole number" + unit);
                return;
            }
            if (number < min || number > max) {
                problems.add(SettingsValidator.named(variable, property, value) + " must be between " + min + " and "
                        + max + unit);
            }
        });
    }

    private static void trueOrFalse(java.util.List<String> problems,
            java.util.function.Function<String, java.util.Optional<String>> setting, String property, String variable) {
        setting.apply(property).filter(value -> !SettingTypes.isBoolean(value)).ifPresent(
                value -> problems.add(SettingsValidator.named(variable, property, value) + " must be true or false"));
    }

    /**
     * A duplicate reads the first delivery's record on a second connection while its transaction is still open, so
     * each transaction may hold two connections: one per worker in per-message mode, one per batch thread in
     * batched mode (its workers only wait).
     */
    static java.util.Optional<String> poolProblem(int pool, boolean batched, int concurrency, int batchThreads) {
        int transactions = batched ? batchThreads : concurrency;
        if (pool >= 2 * transactions) {
            return java.util.Optional.empty();
        }
        String setting = batched ? "POINTS_BATCH_THREADS (points.batch.threads="
                : "POINTS_CONCURRENCY (points.concurrency=";
        return java.util.Optional.of("POINTS_DB_POOL_SIZE (quarkus.datasource.jdbc.max-size=" + pool
                + ") must be at least twice " + setting + transactions + ")");
    }

    /** Certificates to trust for a connection that does not use TLS would be ignored: a mistake either way. */
    static java.util.Optional<String> brokerTrustProblem(boolean trustCertificates, boolean tls) {
        if (!trustCertificates || tls) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("POINTS_BROKER_TRUST_CERTIFICATES (points.broker-trust-certificates) is set but "
                + "the broker connection does not use TLS: set AMQP_USE_SSL=true (amqp-use-ssl) and the broker's TLS "
                + "port in AMQP_PORT, or unset it");
    }

    /** Quarkus prints a ConfigurationException's message alone, on one line, and exits: no stack trace. */
    private static void refuse(String problem) {
        throw new ConfigurationException(problem);
    }

    /**
     * Without a key no token can be verified, and every write would answer 401. application.properties maps an unset
     * POINTS_JWT_PUBLIC_KEY_LOCATION to {@value #NO_KEY} so that this check, not the JWT extension, reports it.
     */
    static java.util.Optional<String> jwtKeyProblem(String location, String inlineKey) {
        boolean hasLocation = location != null && !location.isBlank() && !NO_KEY.equals(location);
        boolean hasKey = inlineKey != null && !inlineKey.isBlank();
        if (hasLocation || hasKey) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("POINTS_JWT_PUBLIC_KEY_LOCATION is not set: give the issuer's public key (a PEM "
                + "file path or URL) or its JWKS URL, which verifies the bearer tokens of the write and admin "
                + "endpoints");
    }

    static final String NO_KEY = "NONE";

    /**
     * An empty POINTS_JWT_ISSUER would leave {@code mp.jwt.verify.issuer} without a value, which the JWT extension
     * refuses naming the property; {@link SettingTypes} gives it {@value #NO_ISSUER} so that this check names the
     * variable. Issuer verification is not switched off by an empty value: that would accept the tokens of any issuer
     * signed with the key.
     */
    static java.util.Optional<String> jwtIssuerProblem(String issuer) {
        if (issuer == null || issuer.isBlank() || NO_ISSUER.equals(issuer)) {
            return java.util.Optional.of("POINTS_JWT_ISSUER is set but empty: give the iss claim the bearer tokens "
                    + "carry, or unset it for the default https://points-inbox.local/issuer");
        }
        return java.util.Optional.empty();
    }

    /** Not an issuer a token could name by mistake: it says what happened. */
    static final String NO_ISSUER = "POINTS_JWT_ISSUER is empty";

    /**
     * A poison message waits for its dead-letter copy inside the delivery's transaction: a bound at or past the
     * transaction timeout would let the transaction be aborted under it first.
     */
    static java.util.Optional<String> deadLetterTimeoutProblem(java.time.Duration timeout,
            java.time.Duration transactionTimeout) {
        if (!timeout.isNegative() && !timeout.isZero() && timeout.compareTo(transactionTimeout) < 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("POINTS_DEAD_LETTER_TIMEOUT (points.dead-letter-timeout="
                + Durations.readable(timeout) + ") must "
                + "be above zero and below the transaction timeout (quarkus.transaction-manager."
                + "default-transaction-timeout=" + Durations.readable(transactionTimeout) + ")");
    }

    /**
     * A statement waiting on a lock must end at the transaction timeout, cancelled on a connection that stays usable,
     * not by the socket timeout, which closes the connection and leaves the database's backend waiting.
     */
    static java.util.Optional<String> socketTimeoutProblem(java.time.Duration timeout,
            java.time.Duration transactionTimeout) {
        if (timeout.isZero() || timeout.compareTo(transactionTimeout) > 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("POINTS_DATABASE_SOCKET_TIMEOUT (points.database-socket-timeout="
                + Durations.readable(timeout) + ") must be 0 (off) or above the transaction timeout (quarkus."
                + "transaction-manager.default-transaction-timeout=" + Durations.readable(transactionTimeout) + ")");
    }

    /**
     * A window shorter than the longest a duplicate can take to arrive lets that duplicate find no inbox row and be
     * applied a second time.
     */
    static java.util.Optional<String> retentionProblem(java.time.Duration window, java.time.Duration budget) {
        if (window.compareTo(budget) >= 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("POINTS_RETENTION_WINDOW (points.retention.window=" + Durations.readable(window)
                + ") is shorter than the redelivery budget " + Durations.readable(budget)
                + " = POINTS_RETENTION_BROKER_MAX_DELIVERY_ATTEMPTS x "
                + "POINTS_RETENTION_BROKER_MAX_REDELIVERY_DELAY + POINTS_RETENTION_REDRIVE_HORIZON: a duplicate "
                + "arriving after its inbox row is deleted would be applied again");
    }
}
