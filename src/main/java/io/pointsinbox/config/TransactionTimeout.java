package io.pointsinbox.config;

import java.time.Duration;

import org.eclipse.microprofile.config.Config;

/**
 * Quarkus's transaction timeout, which several of the service's bounds are checked against and which its failure
 * lines name: the setting, and its value when unset (Narayana's default).
 */
public final class TransactionTimeout {

    public static final String PROPERTY = "quarkus.transaction-manager.default-transaction-timeout";
    private static final long DEFAULT_SECONDS = 60;
    public static final String DEFAULT = DEFAULT_SECONDS + "s";

    private TransactionTimeout() {
    }

    public static Duration of(Config config) {
        return config.getOptionalValue(PROPERTY, Duration.class).orElse(Duration.ofSeconds(DEFAULT_SECONDS));
    }

    /**
     * Whether a transaction that has run this long has reached the timeout, so that the transaction manager rolled it
     * back there whatever failure followed; never when no timeout is known (zero or negative).
     */
    public static boolean reached(Duration running, Duration timeout) {
        return !timeout.isZero() && !timeout.isNegative() && running.compareTo(timeout) >= 0;
    }
}
