package io.pointsinbox.messaging;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;

/**
 * Tells a failure that is the loss of the database connection (a failover, a restarted or killed backend, a network
 * cut) from the others, by the SQL state the PostgreSQL driver gives it: class {@code 08} (connection exception:
 * {@code 08006} an I/O error, {@code 08003} a connection already closed, {@code 08001} a connection refused) or
 * {@code 57P01}-{@code 57P03} (the server shutting down, crashed, or not accepting connections yet). The failure is
 * searched through its causes and its suppressed exceptions: a failed commit carries the driver's exception as a
 * suppressed one.
 */
final class DatabaseConnectionLoss {

    private DatabaseConnectionLoss() {
    }

    /** The driver's exception that says the connection was lost, if this failure is one. */
    static Optional<SQLException> in(Throwable failure) {
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
            if (current instanceof SQLException sql && isConnectionLoss(sql.getSQLState())) {
                return Optional.of(sql);
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

    static boolean isConnectionLoss(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || sqlState.equals("57P01") || sqlState.equals("57P02")
                || sqlState.equals("57P03"));
    }

    /** "SQL state 57P01: FATAL: terminating connection due to administrator command". */
    static String describe(SQLException loss) {
        return "SQL state " + loss.getSQLState() + ": " + loss.getMessage();
    }
}
