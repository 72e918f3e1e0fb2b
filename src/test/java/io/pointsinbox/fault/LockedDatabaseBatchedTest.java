package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.redeem;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.BatchedMode;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.MetricsDelta;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Every test of {@link LockedDatabaseTest}, in batched mode: a batch whose transaction is rolled back at the timeout
 * while the lock is held hands every member back at once (not one by one, each waiting out the timeout again); each
 * delivery fails, named so, and is applied once when the lock is gone.
 */
@QuarkusTest
@TestProfile(LockedDatabaseBatchedTest.BatchedShortTransactionTimeout.class)
class LockedDatabaseBatchedTest extends LockedDatabaseTest {

    public static class BatchedShortTransactionTimeout implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> overrides = new HashMap<>(new ShortTransactionTimeout().getConfigOverrides());
            overrides.putAll(new BatchedMode().getConfigOverrides());
            return overrides;
        }
    }

    /**
     * Redemptions are applied one by one, in batched mode too. Behind the lock, the first one a batch thread tries
     * waits out the timeout; those queued behind it in the same batch are handed back with it, instead of each
     * waiting out the timeout in turn: 6 redemptions on 2 batch threads all fail within about two timeouts (one
     * after the other, they would take five), and are applied once each when the lock is gone.
     */
    @Test
    void redemptionsQueuedBehindOneRolledBackAtTheTimeoutAreHandedBackWithIt() throws Exception {
        long user = 9_300_000L + System.nanoTime() % 100_000;
        int redemptions = 6;
        List<UUID> ids = new ArrayList<>();
        MetricsDelta counted = MetricsDelta.start();
        List<String> reaperReports;
        try (LogCapture connector = LogCapture.of("io.smallrye.reactive.messaging.provider");
                LogCapture narayana = LogCapture.of("com.arjuna.ats");
                Connection lock = lockUserPoints(); AmqpTestClient sender = AmqpTestClient.toInbox()) {
            for (int i = 0; i < redemptions; i++) {
                UUID id = UUID.randomUUID();
                ids.add(id);
                sender.sendText(redeem(id, user, 10));
            }
            // Each delivery's failure is logged naming its message (a redelivery failing again is no proof).
            await("every redemption failed while the lock is held")
                    .atMost(Duration.ofSeconds(3L * TIMEOUT_SECONDS + 1)).pollInterval(Duration.ofMillis(50))
                    .until(() -> ids.stream().allMatch(id -> connector.linesWithContext().stream()
                            .anyMatch(line -> line.thrown() != null
                                    && String.valueOf(line.thrown().getMessage()).contains(id.toString()))));
            assertEquals(0, counted.messages(CONSUMER, "insufficient_balance"), "nothing applied behind the lock");
            lock.commit();
            reaperReports = narayana.lines().stream().filter(line -> line.contains("ARJUNA012381")).toList();
        }
        // The transaction manager reports the stack of each thread still in a transaction it rolls back at the
        // timeout: a batch thread's shows the statement that waited on the lock. A delivery waiting for its batch has
        // left its own (empty) transaction meanwhile, so some sixty lines of a parked thread are not repeated per
        // delivery.
        assertTrue(!reaperReports.isEmpty(), "the batch threads' transactions were reported");
        assertEquals(List.of(), reaperReports.stream().filter(line -> line.contains("GrantBatcher.apply(")).toList(),
                "no delivery reported waiting for its batch");
        awaitDrained();
        await("every redemption applied").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> counted.messages(CONSUMER, "insufficient_balance") >= redemptions);
        assertEquals(redemptions, counted.messages(CONSUMER, "insufficient_balance"),
                "each redemption applied once (the user has no points: each is refused, and recorded)");
        for (UUID id : ids) {
            assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row for " + id);
        }
        assertEquals(0, Ledger.balance(CONSUMER, user), "nothing taken from an empty balance");
        assertEquals(0, deadLettered(), "each failed once, within its delivery attempts");
        assertNothingUnacknowledged();
    }

    /**
     * In batched mode a delivery's own transaction begins when it arrives, before it waits for a batch thread: one
     * that waited behind the locked batches may see its batch commit after the lock is gone and still reach the
     * timeout itself, fail, and come back as a duplicate of what it applied. Never fewer duplicates than the copies.
     */
    @Override
    void assertDuplicates(double duplicates, int otherCopies) {
        assertTrue(duplicates >= otherCopies, "every other copy is a duplicate, and a redelivered applied one may be: "
                + duplicates);
    }
}
