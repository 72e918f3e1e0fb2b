package io.pointsinbox.ops;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

/**
 * The database wait bound for connections taken by virtual threads, where a bound on the socket is costly: a virtual
 * thread's read with a timeout arms a timer of the JDK's scheduler, which another thread wakes up to file and again to
 * cancel, on every round trip. Measured on the warm drain (JDK 25, docs/performance.md), that was 14 % of the
 * service's CPU. So such a connection's socket has no timeout while a virtual thread holds it; this class notes when it
 * was taken, and a watch on one platform thread closes it once it has been held longer than the bound. Its statement
 * then fails as on a socket timeout (a lost connection, SQL state 08006), and the delivery is handed back. Nothing a
 * virtual thread does holds a connection that long: a delivery's transaction ends at the transaction timeout, which is
 * below the bound (checked at start-up); a single statement at the session's statement timeout, the same bound.
 * <p>
 * Connections taken by platform threads (the HTTP workers, the retention and probe threads, every delivery on Java 17)
 * keep the bound on their socket, which costs nothing there, and a retention run may hold its connection for as many
 * batches as it needs.
 */
final class HeldConnections {

    private static final Logger LOG = Logger.getLogger(HeldConnections.class);

    /**
     * The JDK's virtual threads, whose timed reads go through the scheduler's timers. (A virtual thread bound to an
     * OS thread, where the JDK cannot unmount one, blocks as a platform thread does.)
     */
    private static final String VIRTUAL_THREAD = "java.lang.VirtualThread";

    private final long boundNanos;
    private final Map<Connection, Long> takenAt = new ConcurrentHashMap<>();
    private volatile ScheduledExecutorService watch;

    HeldConnections(long boundMillis) {
        this.boundNanos = TimeUnit.MILLISECONDS.toNanos(boundMillis);
    }

    /** Whether the calling thread is a virtual thread (never on Java 17). */
    static boolean onVirtualThread() {
        return VIRTUAL_THREAD.equals(Thread.currentThread().getClass().getName());
    }

    /** A virtual thread took {@code connection} (the driver's own, not the pool's wrapper). */
    void taken(Connection connection) {
        takenAt.put(connection, System.nanoTime());
        if (watch == null) {
            startWatch();
        }
    }

    /** {@code connection} went back to the pool, or out of it: whether a virtual thread had held it. */
    boolean given(Connection connection) {
        return takenAt.remove(connection) != null;
    }

    int held() {
        return takenAt.size();
    }

    /** Starts the watch now, from a platform thread, rather than from the first virtual thread that takes one. */
    synchronized void startWatch() {
        if (watch != null) {
            return;
        }
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "points-inbox-held-connections");
            thread.setDaemon(true);
            return thread;
        });
        // A quarter of the bound, within 0.25-5 s: a connection is closed at most that long after its bound.
        long period = Math.max(250, Math.min(5_000, TimeUnit.NANOSECONDS.toMillis(boundNanos) / 4));
        executor.scheduleWithFixedDelay(this::closeOverdue, period, period, TimeUnit.MILLISECONDS);
        watch = executor;
    }

    void closeOverdue() {
        long now = System.nanoTime();
        takenAt.forEach((connection, since) -> {
            long held = now - since;
            if (held <= boundNanos || !takenAt.remove(connection, since)) {
                return;
            }
            try {
                if (connection.isClosed()) {
                    return;
                }
                // Closes the socket at once: the read blocked on it fails, the pool discards the connection.
                connection.abort(Runnable::run);
                LOG.warnf("A database connection held for %d s by a virtual thread (a delivery), longer than"
                        + " points.database-socket-timeout (%d s), was closed: the database did not answer (fell"
                        + " silent, or a network partition); its statement fails and the delivery is handed back",
                        TimeUnit.NANOSECONDS.toSeconds(held), TimeUnit.NANOSECONDS.toSeconds(boundNanos));
            } catch (SQLException | RuntimeException e) {
                LOG.warnf("Could not close a database connection held past points.database-socket-timeout: %s",
                        e.toString());
            }
        });
    }

    void stop() {
        ScheduledExecutorService executor = watch;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
