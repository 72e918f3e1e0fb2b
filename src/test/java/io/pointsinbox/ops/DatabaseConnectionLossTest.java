package io.pointsinbox.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketTimeoutException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.PostgresTestDatabase;

/** What counts as a lost (or refused) database connection, wherever it sits in a failure, and what does not. */
class DatabaseConnectionLossTest {

    @Test
    void theDriversConnectionStatesAndSocketFailuresAreLosses() {
        for (String state : new String[] { "08006", "08003", "08001", "57P01", "57P02", "57P03" }) {
            SQLException driver = new SQLException("lost", state);
            assertSame(driver, DatabaseConnectionLoss.in(new RuntimeException("statement failed", driver)).orElseThrow(),
                    state);
        }
        SocketTimeoutException timeout = new SocketTimeoutException("Read timed out");
        assertSame(timeout, DatabaseConnectionLoss.in(new SQLException("I/O", null, timeout)).orElseThrow());
    }

    @Test
    void aCommitsSuppressedCauseAndAFailedEnlistmentAreLosses() {
        Exception commit = new Exception("ARJUNA016053: Could not commit transaction.");
        SQLException driver = new SQLException("terminating connection", "57P01");
        Exception resource = new Exception("Error trying to transactionCommit local transaction", driver);
        commit.addSuppressed(resource);
        assertSame(driver, DatabaseConnectionLoss.in(commit).orElseThrow());

        SQLException enlistment = new SQLException("Failed to enlist. Check if a connection from another datasource is"
                + " already enlisted to the same transaction");
        RuntimeException acquisition = new RuntimeException("Unable to acquire JDBC Connection",
                new SQLException("Exception in association of connection to existing transaction", enlistment));
        assertSame(enlistment, DatabaseConnectionLoss.in(acquisition).orElseThrow());
        assertEquals("the pool could not start the transaction on its connection: Failed to enlist. Check if a"
                + " connection from another datasource is already enlisted to the same transaction",
                DatabaseConnectionLoss.describe(enlistment));
        assertEquals("SQL state 57P01: terminating connection", DatabaseConnectionLoss.describe(driver));
    }

    @Test
    void aConnectionTheDatabaseRefusesIsALossWhateverItsSqlState() throws Exception {
        // The driver's own exception, from PostgreSQL: a database closed to new sessions (ALLOW_CONNECTIONS false).
        SQLException closed = PostgresTestDatabase.refusedConnection();
        assertEquals("55000", closed.getSQLState(), String.valueOf(closed));
        RuntimeException acquisition = new RuntimeException("Unable to acquire JDBC Connection", closed);
        assertSame(closed, DatabaseConnectionLoss.in(acquisition).orElseThrow());
        assertTrue(DatabaseConnectionLoss.refusedConnection(closed));
        assertTrue(DatabaseConnectionLoss.describe(closed).startsWith("SQL state 55000: FATAL: "),
                DatabaseConnectionLoss.describe(closed));
        // What PostgreSQL answers only to a session it refuses, whoever reports it.
        for (String state : new String[] { "53300", "28P01", "28000", "3D000", "57P03" }) {
            SQLException refused = new SQLException("refused", state);
            assertSame(refused, DatabaseConnectionLoss.in(new RuntimeException(refused)).orElseThrow(), state);
            assertTrue(DatabaseConnectionLoss.refusedConnection(refused), state);
        }
        // The same SQL state from a statement on an open connection is no connection problem.
        SQLException statement = new SQLException("object not in prerequisite state", "55000");
        assertTrue(DatabaseConnectionLoss.in(statement).isEmpty());
        SQLException killed = new SQLException("terminating connection", "57P01");
        assertFalse(DatabaseConnectionLoss.refusedConnection(killed), "a session ended is lost, not refused");
    }

    @Test
    void otherFailuresAreNot() {
        assertTrue(DatabaseConnectionLoss.in(new SQLException("duplicate key", "23505")).isEmpty());
        assertTrue(DatabaseConnectionLoss.in(new SQLException("relation does not exist", "42P01")).isEmpty());
        assertTrue(DatabaseConnectionLoss.in(new SQLException("canceling statement due to user request", "57014"))
                .isEmpty(), "a statement cancelled at the transaction timeout is not a lost connection");
        assertTrue(DatabaseConnectionLoss.in(new IllegalStateException("a bug")).isEmpty());
        assertTrue(DatabaseConnectionLoss.in(null).isEmpty());
        RuntimeException loop = new RuntimeException("loop");
        RuntimeException other = new RuntimeException("other", loop);
        loop.initCause(other);
        assertTrue(DatabaseConnectionLoss.in(loop).isEmpty(), "a cycle of causes ends");
    }
}
