package io.pointsinbox.ops;

import java.time.Duration;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkus.runtime.Startup;
import io.quarkus.runtime.configuration.ConfigUtils;

/**
 * Fault hooks for crash tests of the packaged application, honoured only under the {@code chaos} profile: a pause
 * between a delivery's commit and its acknowledgement widens the window that a crash must survive.
 */
@Startup
@ApplicationScoped
public class ChaosHooks {

    private static final Logger LOG = Logger.getLogger(ChaosHooks.class);

    private final Optional<Duration> commitAckDelay;
    private final TransactionSynchronizationRegistry transactions;

    ChaosHooks(@ConfigProperty(name = "chaos.commit-ack-delay") Optional<Duration> commitAckDelay,
            TransactionSynchronizationRegistry transactions) {
        if (commitAckDelay.isPresent() && !ConfigUtils.getProfiles().contains("chaos")) {
            throw new IllegalStateException("chaos.commit-ack-delay is a test hook: it is only honoured with "
                    + "QUARKUS_PROFILE=chaos, and must never be set in production");
        }
        this.commitAckDelay = commitAckDelay;
        this.transactions = transactions;
        commitAckDelay.ifPresent(delay -> LOG.warnf("CHAOS profile: every acknowledgement is delayed by %s after its"
                + " commit", delay));
    }

    /**
     * Called inside a delivery's transaction, before its commit: registers a pause that runs once the commit is done
     * and before the acknowledgement. A no-op unless the chaos profile asks for a delay.
     */
    public void scheduleDelayBetweenCommitAndAck() {
        if (commitAckDelay.isEmpty()) {
            return;
        }
        long millis = commitAckDelay.get().toMillis();
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                if (status == Status.STATUS_COMMITTED) {
                    try {
                        Thread.sleep(millis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
    }
}
