package io.pointsinbox.ops;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import org.postgresql.PGConnection;

import io.agroal.api.AgroalPoolInterceptor;
import io.pointsinbox.config.DefaultConcurrency;
import io.pointsinbox.config.PointsConfig;

/**
 * Bounds every wait on the database by {@code points.database-socket-timeout}: each read of a connection's socket
 * while a platform thread holds it, and the whole hold of a connection by a virtual thread (below). A database that
 * falls silent without closing anything (its node lost, a network partition) otherwise holds each statement sent to
 * it until the kernel gives up retransmitting, about 15 minutes with Linux's defaults: the transaction timeout rolls
 * the transaction back but cannot wake a thread blocked on the socket, so every worker stays stuck and nothing is
 * consumed. Past the bound the connection is closed, the statement fails, the delivery is handed back, and the next
 * connection the pool opens reaches whatever answers now (a new primary behind the same address).
 * <p>
 * The database gets the same bound the other way round. A connection the service gave up on may still have a session
 * on the database, inside a transaction that holds row locks, or waiting on such a lock (a network partition, with the
 * database alive). By default PostgreSQL keeps that session until its TCP keep-alive finds the peer gone, two hours,
 * and every delivery for the same users waits on those locks and fails at the transaction timeout, until the broker
 * dead-letters them. So each session asks for keep-alive probes that find a vanished service within about the bound,
 * checks its client while a statement waits (PostgreSQL 14 and later), and ends when idle inside a transaction or
 * running one statement for longer than the bound (for when something between answers the probes on the service's
 * behalf). No statement or transaction of the service legitimately lasts that long: the transaction timeout ends
 * each one before.
 * <p>
 * The bound is above the transaction timeout (checked at start-up), so that a statement waiting on a lock still ends
 * at the transaction timeout, cancelled on a connection that stays usable.
 * <p>
 * It replaces the bound of the connection's handshake, 10 s (the driver's {@code socketTimeout} in
 * {@code application.properties}): the pool opens connections on one thread, which a database that never answers a
 * handshake would otherwise hold for good.
 * <p>
 * While a virtual thread holds a connection (each delivery on Java 21 and later), its socket has no timeout and
 * {@link HeldConnections} enforces the bound instead, from a platform thread: a timed read costs a virtual thread
 * far more than an untimed one.
 */
@ApplicationScoped
public class DatabaseSocketTimeout implements AgroalPoolInterceptor {

    private static final Logger LOG = Logger.getLogger(DatabaseSocketTimeout.class);

    private final int millis;
    private final HeldConnections held;

    DatabaseSocketTimeout(PointsConfig points) {
        this.millis = (int) Math.min(Integer.MAX_VALUE, points.databaseSocketTimeout().toMillis());
        this.held = new HeldConnections(millis);
        if (millis > 0 && DefaultConcurrency.virtualThreads(Runtime.version().feature())) {
            held.startWatch();
        }
    }

    @Override
    public void onConnectionAcquire(Connection connection) {
        if (millis == 0) {
            return;
        }
        Connection driver = driverConnection(connection);
        if (driver == null) {
            return;
        }
        // The driver's own connection: the pool's wrapper would mark the setting for a reset it does not need.
        try {
            if (HeldConnections.onVirtualThread()) {
                // Every pooled connection has the bound on its socket (set at creation, restored on return).
                driver.setNetworkTimeout(Runnable::run, 0);
                held.taken(driver);
            } else if (driver.getNetworkTimeout() != millis) {
                driver.setNetworkTimeout(Runnable::run, millis);
            }
        } catch (SQLException e) {
            // Only a closed connection refuses it, and its first statement fails anyway.
            LOG.debugf("Could not set the wait bound of a database connection: %s", e.getMessage());
        }
    }

    @Override
    public void onConnectionReturn(Connection connection) {
        Connection driver = forget(connection);
        if (driver != null) {
            // Back in the pool with its bound on the socket, as every idle connection: the pool's background
            // validation, or a validation on the next borrow, must not wait on a silent database without one.
            try {
                driver.setNetworkTimeout(Runnable::run, millis);
            } catch (SQLException e) {
                LOG.debugf("Could not restore the wait bound of a database connection: %s", e.getMessage());
            }
        }
    }

    @Override
    public void onConnectionDestroy(Connection connection) {
        forget(connection);
    }

    /** The driver's connection if a virtual thread held it until now, else null. */
    private Connection forget(Connection connection) {
        if (millis == 0 || held.held() == 0) {
            return null;
        }
        Connection driver = driverConnection(connection);
        return driver != null && held.given(driver) ? driver : null;
    }

    /** The driver's connection behind the pool's wrapper, or null if it is not PostgreSQL's. */
    private static Connection driverConnection(Connection connection) {
        try {
            return connection.unwrap(PGConnection.class) instanceof Connection driver ? driver : null;
        } catch (SQLException e) {
            return null;
        }
    }

    @PreDestroy
    void stop() {
        held.stop();
    }

    @Override
    public void onConnectionCreate(Connection connection) {
        if (millis == 0) {
            try {
                // The handshake's bound (the driver's socketTimeout, application.properties) must not outlive it.
                connection.setNetworkTimeout(Runnable::run, 0);
            } catch (SQLException e) {
                LOG.warnf("Could not lift the handshake's bound of a new database connection: %s", e.getMessage());
            }
            return;
        }
        long seconds = Math.max(1, millis / 1000);
        try (Statement statement = connection.createStatement()) {
            // PostgreSQL's driver applies it to its socket's reads; it never runs anything on the executor.
            connection.setNetworkTimeout(Runnable::run, millis);
            // The session's side: keep-alive probes find a vanished service within about the bound, an abandoned
            // session ends even while idle inside a transaction or running a statement.
            statement.execute("set idle_in_transaction_session_timeout = " + millis + "; set statement_timeout = "
                    + millis + "; set tcp_keepalives_idle = " + Math.max(1, seconds / 2)
                    + "; set tcp_keepalives_interval = " + Math.max(1, seconds / 6) + "; set tcp_keepalives_count = 3");
        } catch (SQLException e) {
            LOG.warnf("Could not bound the waits of a new database connection to %d ms: %s", millis, e.getMessage());
            return;
        }
        try (Statement statement = connection.createStatement()) {
            // PostgreSQL 14 and later: a statement waiting on a lock also checks that its client is still there.
            statement.execute("set client_connection_check_interval = " + Math.max(1000, millis / 6));
        } catch (SQLException e) {
            LOG.debugf("No client connection check on this database (PostgreSQL 14 or later): %s", e.getMessage());
        }
    }
}
