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
            Map.entry("points.database-socket-timeout", Type.DURATION),
            Map.entry("points.batch.enabled", Type.BOOLEAN), Map.entry("points.batch.max-size", Type.INTEGER),
            Map.entry("points.batch.threads", Type.INTEGER), Map.entry("points.retention.enabled", Type.BOOLEAN),
            Map.entry("points.retention.window", Type.DURATION),
            Map.entry("points.retention.cleanup-interval", Type.DURATION),
            Map.entry("points.retention.batch-size", Type.INTEGER),
            Map.entry("points.retention.broker-max-delivery-attempts", Type.INTEGER),
            Map.entry("points.retention.broker-max-redelivery-delay", Type.DURATION),
            Map.entry("points.retention.redrive-horizon", Type.DURATION));

    /** The mediator reads {@code ${points.concurrency}} during static initialisation, before any validation can run. */
    private static final String WORKER_POOL = "smallrye.messaging.worker.<virtual-thread>.max-concurrency";

    private static final Map<String, String> PROBLEMS = new ConcurrentHashMap<>();

    /** Read by the JWT extension while it starts; blank, it would fail naming the property and not the variable. */
    private static final String JWT_KEY = "mp.jwt.verify.publickey.location";

    @Override
    public ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        ConfigValue value = context.proceed(name);
        if (JWT_KEY.equals(name) && (value == null || value.getValue() == null || value.getValue().isBlank())) {
            // POINTS_JWT_PUBLIC_KEY_LOCATION set but empty: StartupChecks refuses it by its name.
            return value == null ? ConfigValue.builder().withName(name).withValue(StartupChecks.NO_KEY).build()
                    : value.withValue(StartupChecks.NO_KEY);
        }
        Type type = WORKER_POOL.equals(name) ? Type.INTEGER : TYPES.get(name);
        // Some reads see the value before its ${...} expression is expanded; the expanded read is checked.
        if (type == null || value == null || value.getValue() == null || value.getValue().contains("${")
                || valid(type, value.getValue())) {
            return value;
        }
        if (!WORKER_POOL.equals(name)) {
            String variable = name.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
            PROBLEMS.put(name, variable + " (" + name + "=" + value.getValue() + ") must be " + type.description);
        }
        return value.withValue(type.placeholder);
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

    static boolean valid(String property, String value) {
        return valid(TYPES.get(property), value);
    }

    /** Whether {@code value} is one of the words a boolean setting may be: true, false, yes, no, on, off, 1, 0, y, n. */
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
