package io.pointsinbox.ops;

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

    public static void discard(DataSource dataSource) {
        if (dataSource instanceof AgroalDataSource pool) {
            pool.flush(AgroalDataSource.FlushMode.IDLE);
        }
    }
}
