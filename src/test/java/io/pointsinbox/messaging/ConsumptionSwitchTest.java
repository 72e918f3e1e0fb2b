package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

import javax.sql.DataSource;

import jakarta.interceptor.InvocationContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.pointsinbox.config.PointsConfig;

/**
 * The gate in front of every delivery ({@link AwaitsDatabaseInterceptor}), driven by a database whose probe is held and released by the test: a failed
 * delivery goes back to the broker only once the probe has judged the database, so that its redelivery meets a closed
 * gate while the database is away instead of spending the message's attempts on fast failures.
 */
class ConsumptionSwitchTest {

    private final HeldDatabase database = new HeldDatabase();
    private final ConsumptionSwitch consumption = new ConsumptionSwitch(null, database, null, Duration.ofSeconds(1),
            config(Duration.ofMillis(50)));
    private final AwaitsDatabaseInterceptor gate = new AwaitsDatabaseInterceptor(consumption);

    @AfterEach
    void close() {
        database.release();
        consumption.close();
    }

    @Test
    void aFailedDeliveryWaitsForTheProbesVerdictAndItsRedeliveryForTheDatabase() throws Exception {
        database.up.set(false);
        database.hold();
        AtomicBoolean pausedWhenReturned = new AtomicBoolean();
        CompletableFuture<Void> failedDelivery = CompletableFuture.runAsync(() -> {
            assertEquals("Connection to 127.0.0.1:5432 refused", deliver(FAILS).getMessage(),
                    "the failure goes back to the broker as it was");
            pausedWhenReturned.set(consumption.pausedForOutage());
        });
        assertTrue(database.probing.await(5, TimeUnit.SECONDS), "a failed delivery has the database probed");
        assertWaiting(failedDelivery, "while the probe has not answered, the failed delivery does not go back");

        database.release();
        failedDelivery.get(5, TimeUnit.SECONDS);
        assertTrue(pausedWhenReturned.get(), "it goes back only once the gate is closed");

        AtomicBoolean applied = new AtomicBoolean();
        CompletableFuture<Void> redelivery = CompletableFuture.runAsync(() -> {
            assertEquals(null, deliver(() -> applied.set(true)));
        });
        assertWaiting(redelivery, "the redelivery waits at the gate while the database is away");
        assertFalse(applied.get(), "and does not reach the handler");
        database.up.set(true);
        redelivery.get(5, TimeUnit.SECONDS);
        assertTrue(applied.get(), "the database is back: the redelivery is applied");
        assertFalse(consumption.pausedForOutage(), "the probe found the database again: the gate is open");
    }

    @Test
    void whenTheDatabaseAnswersAFailureGoesBackAfterOneProbeAndTheGateStaysOpen() throws Exception {
        database.hold();
        CompletableFuture<Void> failedDelivery = CompletableFuture.runAsync(() -> deliver(FAILS));
        assertTrue(database.probing.await(5, TimeUnit.SECONDS));
        assertWaiting(failedDelivery, "it waits for the verdict even when the failure was not the database's");
        database.release();
        failedDelivery.get(5, TimeUnit.SECONDS);
        assertFalse(consumption.pausedForOutage());
        AtomicBoolean applied = new AtomicBoolean();
        CompletableFuture.runAsync(() -> deliver(() -> applied.set(true))).get(5, TimeUnit.SECONDS);
        assertTrue(applied.get(), "the next delivery passes the open gate");
        assertEquals(1, database.connections.get(), "one probe, no second round");
    }

    @Test
    void manyFailuresAtOnceShareOneProbe() throws Exception {
        database.up.set(false);
        database.hold();
        ExecutorService deliveries = Executors.newFixedThreadPool(16);
        List<CompletableFuture<Void>> failures = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            failures.add(CompletableFuture.runAsync(() -> deliver(FAILS), deliveries));
        }
        assertTrue(database.probing.await(5, TimeUnit.SECONDS));
        for (CompletableFuture<Void> failure : failures) {
            assertWaiting(failure, "every failed delivery waits for the one verdict");
        }
        assertEquals(1, database.connections.get(), "one probe for all of them");
        database.release();
        CompletableFuture.allOf(failures.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertTrue(consumption.pausedForOutage());
        deliveries.shutdown();
    }

    private static final Runnable FAILS = () -> {
        throw new IllegalStateException("Connection to 127.0.0.1:5432 refused");
    };

    /** One delivery through the interceptor: what its handler threw, or null when it returned. */
    private Exception deliver(Runnable handler) {
        InvocationContext invocation = (InvocationContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { InvocationContext.class }, (proxy, method, args) -> {
                    if (!method.getName().equals("proceed")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    handler.run();
                    return null;
                });
        try {
            gate.awaitDatabase(invocation);
            return null;
        } catch (Exception e) {
            return e;
        }
    }

    private static void assertWaiting(CompletableFuture<?> future, String message) throws InterruptedException {
        Thread.sleep(300);
        assertFalse(future.isDone(), message);
    }

    private static PointsConfig config(Duration retryInterval) {
        return (PointsConfig) Proxy.newProxyInstance(PointsConfig.class.getClassLoader(),
                new Class<?>[] { PointsConfig.class }, (proxy, method, args) -> switch (method.getName()) {
                    case "databaseRetryInterval" -> retryInterval;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** A database whose connections can be held at the door, and that answers or refuses as told. */
    private static final class HeldDatabase implements DataSource {

        final AtomicBoolean up = new AtomicBoolean(true);
        final AtomicInteger connections = new AtomicInteger();
        final CountDownLatch probing = new CountDownLatch(1);
        private volatile CountDownLatch door = new CountDownLatch(0);

        void hold() {
            door = new CountDownLatch(1);
        }

        void release() {
            door.countDown();
        }

        @Override
        public Connection getConnection() throws SQLException {
            connections.incrementAndGet();
            probing.countDown();
            try {
                door.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted", e);
            }
            if (!up.get()) {
                throw new SQLException("Connection to 127.0.0.1:5432 refused");
            }
            Statement statement = (Statement) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] { Statement.class }, (proxy, method, args) -> method.getName().equals("execute")
                            ? Boolean.TRUE : null);
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
                    (proxy, method, args) -> switch (method.getName()) {
                        case "createStatement" -> statement;
                        case "getNetworkTimeout" -> 0;
                        default -> null;
                    });
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
