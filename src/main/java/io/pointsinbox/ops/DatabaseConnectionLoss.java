package io.pointsinbox.ops;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;

/**
 * Tells a failure that is the loss of the database connection (a failover, a restarted or killed backend, a network
 * cut, a database that fell silent) from the others: a read that timed out, a broken socket, or an exception of the
 * PostgreSQL driver with SQL state class {@code 08} (connection exception: {@code 08006} an I/O error, {@code 08003}
 * a connection already closed, {@code 08001} a connection refused) or {@code 57P01}-{@code 57P03} (the server shutting
 * down, as a restart or a failover does, crashed, or not accepting connections yet). The failure is searched through
 * its causes and its suppressed exceptions: a failed commit carries the driver's exception as a suppressed one.
 * <p>
 * One more: the pool's refusal to enlist a connection in the transaction ({@code Failed to enlist ...}). The pool hands
 * out a connection whose session the database has just ended; starting the transaction on it fails, and the pool
 * reports that without the driver's exception. With one datasource, nothing else makes an enlistment fail, and
 * nothing of the transaction has run yet.
 * <p>
 * And a database that refuses a new connection ({@link #refusedConnection(Throwable)}): whatever PostgreSQL answers
 * while the driver opens one (too many clients, {@code 53300}; the database closed to new sessions for maintenance,
 * {@code ALLOW_CONNECTIONS false}, {@code 55000}; a failed authentication, {@code 28000} or {@code 28P01}, as after
 * a password rotated; a database that does not exist, {@code 3D000}). No statement of the transaction has run, and
 * every delivery or request would fail the same way until the database lets the service in: an outage too.
 */
public final class DatabaseConnectionLoss {

    /** Agroal's words when the transaction manager refused its connection. */
    private static final String FAILED_ENLISTMENT = "Failed to enlist";

    /** What PostgreSQL answers only to a new session it refuses. */
    private static final Set<String> REFUSED_SESSION = Set.of("28000", "28P01", "3D000", "53300", "57P03");

    /** The PostgreSQL driver's class that opens a connection: an exception raised in it is a connection not opened. */
    private static final String DRIVER_CONNECTING = "org.postgresql.core.v3.ConnectionFactoryImpl";

    private DatabaseConnectionLoss() {
    }

    /** The exception that says the connection was lost, if this failure is one. */
    public static Optional<Throwable> in(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> next = new ArrayDeque<>();
        if (failure != null) {
            next.add(failure);
        }
        while (!next.isEmpty() && seen.size() < 64) {
            Throwable current = next.poll();
            if (!seen.add(current)) {
                continue;
            }
            boolean lost = current instanceof SQLException sql
                    && (isConnectionLoss(sql.getSQLState()) || isFailedEnlistment(sql) || isRefusedConnection(sql));
            if (lost || current instanceof SocketTimeoutException || current instanceof SocketException) {
                return Optional.of(current);
            }
            if (current.getCause() != null) {
                next.add(current.getCause());
            }
            for (Throwable suppressed : current.getSuppressed()) {
                next.add(suppressed);
            }
        }
        return Optional.empty();
    }

    private static boolean isConnectionLoss(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || sqlState.equals("57P01") || sqlState.equals("57P02")
                || sqlState.equals("57P03"));
    }

    /** Whether this loss, as {@link #in(Throwable)} found it, is the database refusing a new connection. */
    public static boolean refusedConnection(Throwable loss) {
        return loss instanceof SQLException sql && isRefusedConnection(sql);
    }

    private static boolean isRefusedConnection(SQLException e) {
        if (e.getSQLState() != null && REFUSED_SESSION.contains(e.getSQLState())) {
            return true;
        }
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getClassName().equals(DRIVER_CONNECTING)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isFailedEnlistment(SQLException e) {
        return e.getSQLState() == null && e.getCause() == null && e.getMessage() != null
                && e.getMessage().startsWith(FAILED_ENLISTMENT);
    }

    /** "SQL state 57P01: FATAL: terminating connection due to administrator command", or the socket's failure. */
    public static String describe(Throwable loss) {
        if (loss instanceof SQLException sql && sql.getSQLState() == null) {
            return "the pool could not start the transaction on its connection: " + sql.getMessage();
        }
        return loss instanceof SQLException sql ? "SQL state " + sql.getSQLState() + ": " + sql.getMessage()
                : loss.toString();
    }
}
