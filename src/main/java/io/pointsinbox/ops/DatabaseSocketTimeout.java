package io.pointsinbox.ops;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.agroal.api.AgroalPoolInterceptor;
import io.pointsinbox.config.PointsConfig;

/**
 * Bounds every read of every database connection by {@code points.database-socket-timeout}, set once when the pool
 * opens the connection. A database that falls silent without closing anything (its node lost, a network partition)
 * otherwise holds each statement sent to it until the kernel gives up retransmitting, about 15 minutes with Linux's
 * defaults: the transaction timeout rolls the transaction back but cannot wake a thread blocked on the socket, so
 * every worker stays stuck and nothing is consumed. Past the bound the driver closes the connection, the statement
 * fails, the delivery is handed back, and the next connection the pool opens reaches whatever answers now (a new
 * primary behind the same address).
 * <p>
 * The database gets the same bound the other way round, as {@code idle_in_transaction_session_timeout}: a connection
 * the service gave up on may still have a session on the database, inside a transaction that holds row locks (a
 * network partition, with the database alive). Without it PostgreSQL keeps that session until its TCP keep-alive
 * finds the peer gone, two hours by default, and every delivery for the same users waits on its locks and fails at
 * the transaction timeout, until the broker dead-letters them. No transaction of the service stays idle that long: the
 * transaction timeout ends each one before.
 * <p>
 * The bound is above the transaction timeout (checked at start-up), so that a statement waiting on a lock still ends
 * at the transaction timeout, cancelled on a connection that stays usable.
 */
@ApplicationScoped
public class DatabaseSocketTimeout implements AgroalPoolInterceptor {

    private static final Logger LOG = Logger.getLogger(DatabaseSocketTimeout.class);

    private final int millis;

    DatabaseSocketTimeout(PointsConfig points) {
        this.millis = (int) Math.min(Integer.MAX_VALUE, points.databaseSocketTimeout().toMillis());
    }

    @Override
    public void onConnectionCreate(Connection connection) {
        if (millis == 0) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            // PostgreSQL's driver applies it to its socket's reads; it never runs anything on the executor.
            connection.setNetworkTimeout(Runnable::run, millis);
            statement.execute("set idle_in_transaction_session_timeout = " + millis);
        } catch (SQLException e) {
            LOG.warnf("Could not bound the waits of a new database connection to %d ms: %s", millis, e.getMessage());
        }
    }
}
