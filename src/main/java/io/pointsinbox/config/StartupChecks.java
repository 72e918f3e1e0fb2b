package io.pointsinbox.config;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.Config;

import io.quarkus.runtime.StartupEvent;

/** Refuses to start on settings that are each valid but do not work together, naming the settings to change. */
@Singleton
public class StartupChecks {

    void check(@Observes StartupEvent event, Config config, PointsConfig points, RetentionConfig retention,
            BatchConfig batch) {
        retentionProblem(retention.window(), retention.redeliveryBudget()).ifPresent(problem -> {
            throw new IllegalStateException(problem);
        });
        boolean verificationKey = config.getOptionalValue("mp.jwt.verify.publickey.location", String.class).isPresent()
                || config.getOptionalValue("mp.jwt.verify.publickey", String.class).isPresent();
        if (!verificationKey) {
            throw new IllegalStateException("No key to verify bearer tokens: set POINTS_JWT_PUBLIC_KEY_LOCATION "
                    + "(mp.jwt.verify.publickey.location) to the issuer's public key or JWKS URL");
        }
        java.time.Duration transactionTimeout = config.getOptionalValue(
                "quarkus.transaction-manager.default-transaction-timeout", java.time.Duration.class)
                .orElse(java.time.Duration.ofSeconds(60));
        deadLetterTimeoutProblem(points.deadLetterTimeout(), transactionTimeout).ifPresent(problem -> {
            throw new IllegalStateException(problem);
        });
        int pool = config.getOptionalValue("quarkus.datasource.jdbc.max-size", Integer.class).orElse(20);
        // A duplicate reads the first delivery's record on a second connection while its transaction is still open. In
        // batched mode the workers only wait: the batch threads run every transaction.
        int transactions = batch.enabled() ? batch.threads() : points.concurrency();
        if (pool < 2 * transactions) {
            String setting = batch.enabled() ? "POINTS_BATCH_THREADS (points.batch.threads="
                    : "POINTS_CONCURRENCY (points.concurrency=";
            throw new IllegalStateException("POINTS_DB_POOL_SIZE (quarkus.datasource.jdbc.max-size=" + pool
                    + ") must be at least twice " + setting + transactions + ")");
        }
    }

    /**
     * A poison message waits for its dead-letter copy inside the delivery's transaction: a bound at or past the
     * transaction timeout would let the transaction be aborted under it first.
     */
    static java.util.Optional<String> deadLetterTimeoutProblem(java.time.Duration timeout,
            java.time.Duration transactionTimeout) {
        if (!timeout.isNegative() && !timeout.isZero() && timeout.compareTo(transactionTimeout) < 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("POINTS_DEAD_LETTER_TIMEOUT (points.dead-letter-timeout=" + timeout + ") must "
                + "be above zero and below the transaction timeout (quarkus.transaction-manager."
                + "default-transaction-timeout=" + transactionTimeout + ")");
    }

    /**
     * A window shorter than the longest a duplicate can take to arrive lets that duplicate find no inbox row and be
     * applied a second time.
     */
    static java.util.Optional<String> retentionProblem(java.time.Duration window, java.time.Duration budget) {
        if (window.compareTo(budget) >= 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("POINTS_RETENTION_WINDOW (points.retention.window=" + window + ") is shorter "
                + "than the redelivery budget " + budget + " = POINTS_RETENTION_BROKER_MAX_DELIVERY_ATTEMPTS x "
                + "POINTS_RETENTION_BROKER_MAX_REDELIVERY_DELAY + POINTS_RETENTION_REDRIVE_HORIZON: a duplicate "
                + "arriving after its inbox row is deleted would be applied again");
    }
}
