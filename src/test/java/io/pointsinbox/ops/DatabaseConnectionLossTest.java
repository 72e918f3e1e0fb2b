package io.pointsinbox.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketTimeoutException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;

/** What counts as a lost database connection, wherever it sits in a failure, and what does not. */
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
