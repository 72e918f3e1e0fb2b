package io.pointsinbox.ops;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.agroal.api.AgroalDataSource;

/**
 * After the database failed to answer, the pool's idle connections may all lead to one that fell silent (a primary
 * lost while a new one took its address), and each would hold whoever takes it next until its socket timeout
 * ({@link DatabaseSocketTimeout}). They are closed, so that the next statement opens a fresh connection to whatever
 * answers now; connections in use fail on their own.
 */
public final class IdleConnections {

    private IdleConnections() {
    }

    /**
     * Whether a failure comes from a lost database connection: a read that timed out, a broken socket, or a driver
     * error of SQLSTATE class 08 (connection exception), anywhere in its causes.
     */
    public static boolean lostConnection(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SocketTimeoutException || cause instanceof SocketException
                    || cause instanceof SQLException sql && sql.getSQLState() != null
                            && sql.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    public static void discard(DataSource dataSource) {
        if (dataSource instanceof AgroalDataSource pool) {
            pool.flush(AgroalDataSource.FlushMode.IDLE);
        }
    }
}
