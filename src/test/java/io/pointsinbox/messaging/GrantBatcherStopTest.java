package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import jakarta.transaction.TransactionManager;

import io.pointsinbox.config.BatchConfig;
import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.contract.MessageType;
import io.pointsinbox.contract.PointsEnvelope;

/**
 * A delivery handed to batched mode while the service stops must go back to the broker at once, never wait for a
 * batch thread that has already ended (the worker would hold the shutdown until the pool's grace ran out).
 */
class GrantBatcherStopTest {

    // Proxies, not classes implementing the mappings: Quarkus indexes test classes, and the mappings' validation
    // annotations would make an implementing class an invalid bean.
    private static final BatchConfig BATCH = config(BatchConfig.class, Map.of("enabled", true, "maxSize", 100,
            "threads", 1));
    private static final PointsConfig POINTS = config(PointsConfig.class, Map.of("consumer", "points-ledger",
            "concurrency", 8));

    /** A worker outside any transaction: nothing to leave while it waits. */
    private static final TransactionManager NO_TRANSACTION = (TransactionManager) Proxy.newProxyInstance(
            TransactionManager.class.getClassLoader(), new Class<?>[] { TransactionManager.class },
            (proxy, method, args) -> null);

    private static <T> T config(Class<T> mapping, Map<String, Object> values) {
        return mapping.cast(Proxy.newProxyInstance(mapping.getClassLoader(), new Class<?>[] { mapping },
                (proxy, method, args) -> {
                    Object value = values.get(method.getName());
                    if (value == null) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    return value;
                }));
    }

    private static PointsEnvelope grant() {
        return new PointsEnvelope(UUID.randomUUID(), MessageType.POINTS_GRANTED, 7, 10,
                "{\"userId\":7,\"amount\":10}", "0".repeat(64));
    }

    @Test
    void deliveryArrivingAfterStopIsHandedBackInsteadOfWaiting() {
        // No batch thread is started: nothing but the stop can complete the delivery.
        GrantBatcher batcher = new GrantBatcher(BATCH, POINTS, null, null, Duration.ofSeconds(60), NO_TRANSACTION);
        batcher.stop(null);

        IllegalStateException handedBack = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> assertThrows(IllegalStateException.class, () -> batcher.apply(grant())));
        assertEquals("shutting down: this delivery goes back to the broker", handedBack.getMessage());
    }

    @Test
    void deliveryWaitingWhenStopStartsIsHandedBack() throws Exception {
        GrantBatcher batcher = new GrantBatcher(BATCH, POINTS, null, null, Duration.ofSeconds(60), NO_TRANSACTION);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try {
                batcher.apply(grant());
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        }, "worker");
        worker.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (worker.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(Thread.State.WAITING, worker.getState(), "the worker waits for its batch");

        batcher.stop(null);

        Throwable failure = outcome.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(IllegalStateException.class, failure == null ? null : failure.getClass());
        assertEquals("shutting down: this delivery goes back to the broker", failure.getMessage());
    }
}
