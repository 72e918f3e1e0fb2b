package io.pointsinbox.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import io.pointsinbox.contract.EnvelopeReader;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.ConfigValidationException.Problem;
import io.smallrye.config.ConfigValidator;

/**
 * Checks the service's own settings while the configuration is built, before anything starts: a value out of range
 * stops the service with every problem named by its environment variable and property.
 * <p>
 * Why not Bean Validation constraints on the mappings: with quarkus-hibernate-validator, a single constraint on any
 * {@code @ConfigMapping} makes Quarkus validate every mapping of every extension with Hibernate Validator at start-up,
 * which cost about 0.25 s of a 1.3 s start (AOT cache, small footprint); the extension itself cost another 0.05-0.09 s
 * and 500 classes for one query parameter's bounds. The service has no Bean Validation; these few rules are code.
 */
public final class SettingsValidator implements ConfigValidator {

    private static final Pattern CONSUMER = Pattern.compile("[a-z0-9][a-z0-9._-]*");
    /** A body at the envelope's limit and 1 KiB for the message's other sections. */
    private static final int MIN_MESSAGE_SIZE = EnvelopeReader.MAX_BODY_BYTES + 1024;

    @Override
    public void validateMapping(Class<?> mappingClass, String prefix, Object mapping) {
        // Each mapping is validated as soon as it is built, in no fixed order: Quarkus's settings with a rule of this
        // service are reported with whichever mapping comes after the one that read them.
        List<Problem> problems = new ArrayList<>(SettingTypes.takeQuarkusProblems());
        if (mapping instanceof PointsConfig) {
            problems.addAll(SettingTypes.problems("points.", "points.batch.", "points.retention."));
        } else if (mapping instanceof BatchConfig) {
            problems.addAll(SettingTypes.problems("points.batch."));
        } else if (mapping instanceof RetentionConfig) {
            problems.addAll(SettingTypes.problems("points.retention."));
        }
        if (mapping instanceof PointsConfig points) {
            String consumer = points.consumer();
            if (consumer.length() > 100 || !CONSUMER.matcher(consumer).matches()) {
                problems.add(problem("points.consumer", consumer, "must be 1 to 100 lower-case letters, digits, "
                        + "'.', '_' or '-', starting with a letter or digit"));
            }
            notBlank(problems, "points.address", points.address());
            notBlank(problems, "points.dead-letter-address", points.deadLetterAddress());
            between(problems, "points.max-amount", points.maxAmount(), 1, 1_000_000_000);
            between(problems, "points.max-message-size", points.maxMessageSize(), MIN_MESSAGE_SIZE, 64 * 1024 * 1024);
            between(problems, "points.link-credit", points.linkCredit(), 1, 1000);
            between(problems, "points.concurrency", points.concurrency(), 1, 256);
            positive(problems, "points.database-retry-interval", points.databaseRetryInterval());
            offOrUpToAnHour(problems, "points.broker-idle-timeout", points.brokerIdleTimeout(), 2);
            offOrUpToAnHour(problems, "points.stall-timeout", points.stallTimeout(), 5);
            points.brokerTrustCertificates().ifPresent(location -> BrokerCertificates.problem(location)
                    .ifPresent(rule -> problems.add(problem("points.broker-trust-certificates", location, rule))));
            offOrUpToAnHour(problems, "points.database-socket-timeout", points.databaseSocketTimeout(), 1);
        } else if (mapping instanceof BatchConfig batch) {
            between(problems, "points.batch.max-size", batch.maxSize(), 1, 1000);
            between(problems, "points.batch.threads", batch.threads(), 1, 16);
        } else if (mapping instanceof RetentionConfig retention) {
            positive(problems, "points.retention.window", retention.window());
            between(problems, "points.retention.batch-size", retention.batchSize(), 1, 100_000);
            atLeast(problems, "points.retention.broker-max-delivery-attempts", retention.brokerMaxDeliveryAttempts(),
                    1);
        }
        if (!problems.isEmpty()) {
            throw new ConfigValidationException(problems.toArray(Problem[]::new));
        }
    }

    private static void notBlank(List<Problem> problems, String property, String value) {
        if (value.isBlank()) {
            problems.add(problem(property, value, "must not be blank"));
        }
    }

    private static void between(List<Problem> problems, String property, long value, long min, long max) {
        if (value < min || value > max) {
            problems.add(problem(property, value, "must be between " + min + " and " + max));
        }
    }

    private static void atLeast(List<Problem> problems, String property, long value, long min) {
        if (value < min) {
            problems.add(problem(property, value, "must be at least " + min));
        }
    }

    /** A duration that is 0 (off), or from {@code minSeconds} to an hour. */
    private static void offOrUpToAnHour(List<Problem> problems, String property, Duration value, long minSeconds) {
        if (!value.isZero()
                && (value.compareTo(Duration.ofSeconds(minSeconds)) < 0 || value.compareTo(Duration.ofHours(1)) > 0)) {
            problems.add(problem(property, value, "must be 0 (off) or from " + minSeconds + "s to 1h"));
        }
    }

    private static void positive(List<Problem> problems, String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            problems.add(problem(property, value, "must be above zero"));
        }
    }

    /** Worded as {@link StartupChecks} words its problems: the environment variable first, then the property. */
    private static Problem problem(String property, Object value, String rule) {
        return new Problem(named(variableOf(property), property, value) + " " + rule);
    }

    /** How every refusal of a setting begins: {@code AMQP_PORT (amqp-port=70000)}. */
    static String named(String variable, String property, Object value) {
        return variable + " (" + property + "=" + value + ")";
    }

    /** The environment variable of a property of this service: {@code points.concurrency}, POINTS_CONCURRENCY. */
    static String variableOf(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }
}
