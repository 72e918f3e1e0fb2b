package io.pointsinbox.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class StartupChecksTest {

    @Test
    void aRetentionWindowShorterThanTheRedeliveryBudgetIsRefusedNamingTheSettings() {
        String problem = StartupChecks.retentionProblem(Duration.ofDays(1), Duration.ofDays(3)).orElseThrow();
        assertTrue(problem.contains("POINTS_RETENTION_WINDOW") && problem.contains("POINTS_RETENTION_REDRIVE_HORIZON")
                && problem.contains("POINTS_RETENTION_BROKER_MAX_DELIVERY_ATTEMPTS"), problem);
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
}
