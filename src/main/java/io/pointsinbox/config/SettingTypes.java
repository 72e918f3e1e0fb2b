package io.pointsinbox.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.smallrye.config.ConfigSourceInterceptor;
import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.ConfigValidationException.Problem;
import io.smallrye.config.Converters;

/**
 * Turns a setting of the wrong type ({@code POINTS_CONCURRENCY=eight}) into one line naming the environment
 * variable, reported with the range problems by {@link SettingsValidator}, instead of a conversion stack trace that
 * names whichever internal property read it first (the worker pool, while Quarkus initialises statically).
 * <p>
 * A malformed value is recorded and replaced by a harmless placeholder, so that reading the configuration can go on
 * until the validator stops the start with every problem. The placeholder never runs: the validator always fails
 * the start when a problem was recorded.
 */
public final class SettingTypes implements ConfigSourceInterceptor {

    private enum Type {
        INTEGER("a whole number", "1"), DURATION("a duration such as 10s, 5m or 7d", "1s"),
        BOOLEAN("true or false", "false");

        private final String description;
        private final String placeholder;

        Type(String description, String placeholder) {
            this.description = description;
            this.placeholder = placeholder;
        }
    }

    private static final Map<String, Type> TYPES = Map.ofEntries(
            Map.entry("points.concurrency", Type.INTEGER), Map.entry("points.max-amount", Type.INTEGER),
            Map.entry("points.max-message-size", Type.INTEGER), Map.entry("points.link-credit", Type.INTEGER),
            Map.entry("points.dead-letter-timeout", Type.DURATION),
            Map.entry("points.database-retry-interval", Type.DURATION),
            Map.entry("points.broker-idle-timeout", Type.DURATION),
            Map.entry("points.stall-timeout", Type.DURATION),
            Map.entry("points.database-socket-timeout", Type.DURATION),
            Map.entry("points.batch.enabled", Type.BOOLEAN), Map.entry("points.batch.max-size", Type.INTEGER),
            Map.entry("points.batch.threads", Type.INTEGER), Map.entry("points.retention.enabled", Type.BOOLEAN),
            Map.entry("points.retention.window", Type.DURATION),
            Map.entry("points.retention.cleanup-interval", Type.DURATION),
            Map.entry("points.retention.batch-size", Type.INTEGER),
            Map.entry("points.retention.broker-max-delivery-attempts", Type.INTEGER),
            Map.entry("points.retention.broker-max-redelivery-delay", Type.DURATION),
            Map.entry("points.retention.redrive-horizon", Type.DURATION));

    /**
     * Quarkus's own settings that the README documents under a variable of this service: Quarkus names only the
     * property when their value has the wrong type ({@code PORT=http}), and reports a value out of range (a pool of 0,
     * an unknown policy) with a stack trace once something uses it, or not at all (a negative shutdown timeout). Their
     * problems are only recorded, never replaced: should one be read after the last mapping was validated, Quarkus
     * fails or behaves exactly as it would without this rule.
     */
    private record Rule(String variable, java.util.function.Predicate<String> valid, String description) {
    }

    private static final java.util.Set<String> POLICIES = java.util.Set.of("permit", "authenticated", "deny",
            "points-writer", "points-ops");
    private static final String POLICY = "one of permit, authenticated, deny, points-writer, points-ops (a role's"
            + " policy)";

    /** The names Quarkus takes for a log level, in any case (a number or a blank around the name it refuses). */
    private static final java.util.Set<String> LEVELS = java.util.Set.of("OFF", "FATAL", "ERROR", "WARN", "WARNING",
            "SEVERE", "INFO", "CONFIG", "DEBUG", "FINE", "FINER", "TRACE", "FINEST", "ALL");

    private static final Map<String, Rule> QUARKUS = Map.of(
            "quarkus.datasource.jdbc.max-size", new Rule("POINTS_DB_POOL_SIZE", v -> wholeNumber(v, 1, 10_000),
                    "a whole number from 1 to 10000"),
            "quarkus.flyway.connect-retries", new Rule("QUARKUS_FLYWAY_CONNECT_RETRIES",
                    v -> wholeNumber(v, 0, Integer.MAX_VALUE), "a whole number, 0 or more"),
            "quarkus.shutdown.delay", new Rule("POINTS_SHUTDOWN_DELAY", v -> duration(v, false),
                    "a duration of 0s or more such as 2s"),
            "quarkus.shutdown.timeout", new Rule("POINTS_SHUTDOWN_TIMEOUT", v -> duration(v, false),
                    "a duration of 0s or more such as 20s"),
            "quarkus.transaction-manager.default-transaction-timeout", new Rule(
                    "QUARKUS_TRANSACTION_MANAGER_DEFAULT_TRANSACTION_TIMEOUT", v -> duration(v, true),
                    "a duration above zero such as 60s"),
            "quarkus.http.auth.permission.readers.policy", new Rule("POINTS_READ_POLICY",
                    v -> POLICIES.contains(v.trim()), POLICY),
            "quarkus.http.auth.permission.ops.policy", new Rule("POINTS_ADMIN_POLICY",
                    v -> POLICIES.contains(v.trim()), POLICY),
            "quarkus.http.port", new Rule("PORT", v -> wholeNumber(v, 0, 65535), "a whole number from 0 to 65535"),
            "quarkus.log.category.\"io.pointsinbox\".level", new Rule("POINTS_LOG_LEVEL",
                    v -> LEVELS.contains(v.toUpperCase(Locale.ROOT)), "a log level: ERROR, WARN, INFO, DEBUG or TRACE"
                            + " (also OFF, FATAL, ALL)"));

    /** The mediator reads {@code ${points.concurrency}} during static initialisation, before any validation can run. */
    private static final String WORKER_POOL = "smallrye.messaging.worker.<virtual-thread>.max-concurrency";

    private static final Map<String, String> PROBLEMS = new ConcurrentHashMap<>();
    /**
     * The problems of Quarkus's settings reported while this configuration was built: a setting read again after its
     * problem was reported (by another mapping) is recorded again, and would be reported twice.
     */
    private static final java.util.Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    /**
     * Read by the JWT extension while it starts: POINTS_JWT_PUBLIC_KEY_LOCATION or POINTS_JWT_ISSUER set but empty
     * leaves the property without a value, and the extension would fail naming the property, not the variable. The
     * placeholder stands in until {@link StartupChecks} refuses it by the variable's name.
     */
    private static final Map<String, String> EMPTY_JWT = Map.of("mp.jwt.verify.publickey.location",
            StartupChecks.NO_KEY, "mp.jwt.verify.issuer", StartupChecks.NO_ISSUER);

    /** One per configuration Quarkus builds ({@link SettingsValidation}): its problems are reported afresh. */
    SettingTypes() {
        REPORTED.clear();
    }

    @Override
    public ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        ConfigValue value = context.proceed(name);
        String placeholder = EMPTY_JWT.get(name);
        if (placeholder != null && (value == null || value.getValue() == null || value.getValue().isBlank())) {
            return value == null ? ConfigValue.builder().withName(name).withValue(placeholder).build()
                    : value.withValue(placeholder);
        }
        Rule quarkusRule = QUARKUS.get(name);
        if (quarkusRule != null && value != null && value.getValue() != null && !value.getValue().contains("${")) {
            problem(quarkusRule, name, value.getValue()).ifPresent(problem -> PROBLEMS.put(name, problem));
        }
        Type type = WORKER_POOL.equals(name) ? Type.INTEGER : TYPES.get(name);
        // Some reads see the value before its ${...} expression is expanded; the expanded read is checked.
        if (type == null || value == null || value.getValue() == null || value.getValue().contains("${")
                || valid(type, value.getValue())) {
            return value;
        }
        if (!WORKER_POOL.equals(name)) {
            PROBLEMS.put(name, SettingsValidator.named(SettingsValidator.variableOf(name), name, value.getValue())
                    + " must be " + type.description);
        }
        return value.withValue(type.placeholder);
    }

    /** What is wrong with a value of one of the Quarkus settings the README documents under a variable, if anything. */
    static java.util.Optional<String> quarkusProblem(String property, String value) {
        Rule rule = QUARKUS.get(property);
        return rule == null ? java.util.Optional.empty() : problem(rule, property, value);
    }

    private static java.util.Optional<String> problem(Rule rule, String property, String value) {
        if (rule.valid().test(value)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(SettingsValidator.named(rule.variable(), property, value) + " must be "
                + rule.description());
    }

    /** The type problems recorded for the properties under {@code prefix} and none of the {@code others}. */
    static List<Problem> problems(String prefix, String... others) {
        List<Problem> found = new ArrayList<>();
        PROBLEMS.forEach((property, problem) -> {
            boolean other = false;
            for (String o : others) {
                other |= property.startsWith(o);
            }
            if (property.startsWith(prefix) && !other) {
                found.add(new Problem(problem));
            }
        });
        return found;
    }

    /** The problems recorded for Quarkus's settings since the last call: each is reported once. */
    static List<Problem> takeQuarkusProblems() {
        List<Problem> found = new ArrayList<>();
        for (String property : QUARKUS.keySet()) {
            String problem = PROBLEMS.remove(property);
            if (problem != null && REPORTED.add(problem)) {
                found.add(new Problem(problem));
            }
        }
        return found;
    }

    static boolean valid(String property, String value) {
        return valid(TYPES.get(property), value);
    }

    private static boolean wholeNumber(String value, long min, long max) {
        try {
            long number = Long.parseLong(value.trim());
            return number >= min && number <= max;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean duration(String value, boolean aboveZero) {
        try {
            java.time.Duration d = io.quarkus.runtime.configuration.DurationConverter.parseDuration(value);
            return d != null && !d.isNegative() && !(aboveZero && d.isZero());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether {@code value} is a word a boolean setting may be: true, false, yes, no, on, off, 1, 0, y, n. */
    static boolean isBoolean(String value) {
        return valid(Type.BOOLEAN, value);
    }

    private static boolean valid(Type type, String value) {
        try {
            switch (type) {
                case INTEGER -> Converters.getImplicitConverter(Long.class).convert(value);
                case DURATION -> io.quarkus.runtime.configuration.DurationConverter.parseDuration(value);
                case BOOLEAN -> {
                    String v = value.trim().toLowerCase(Locale.ROOT);
                    if (!List.of("true", "false", "1", "0", "yes", "no", "y", "n", "on", "off").contains(v)) {
                        return false;
                    }
                }
            }
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
