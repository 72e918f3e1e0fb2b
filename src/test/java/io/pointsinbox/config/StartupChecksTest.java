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
}
