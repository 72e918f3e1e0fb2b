package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.time.Duration;

import javax.transaction.xa.XAException;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

import jakarta.transaction.RollbackException;

import io.pointsinbox.support.PostgresTestDatabase;

/**
 * A delivery that failed because the database connection was lost, or whose transaction was rolled back at its
 * timeout, is one WARN line saying so, Narayana's report of the same loss is dropped, and every other failure keeps
 * its ERROR and its stack trace.
 */
class DeliveryFailureLogFilterTest {

    private static final String KILLED = "FATAL: terminating connection due to administrator command";

    private final ConsoleLogFilter filter = new ConsoleLogFilter();

    @Test
    void aStatementOnALostConnectionIsOneWarningLine() {
        Exception failure = new RuntimeException("could not execute statement [" + KILLED + "] [insert into ...]",
                new SQLException(KILLED, "57P01"));
        ExtLogRecord record = methodFailed(new DeliveryFailedException("m-1", "points-ledger", 2, failure));

        assertTrue(filter.isLoggable(record));
        assertEquals(org.jboss.logmanager.Level.WARN, record.getLevel());
        assertNull(record.getThrown(), "no stack trace");
        assertEquals("Message m-1 for consumer points-ledger failed on delivery attempt 2, rolled back and handed back"
                + " to the broker: the database connection was lost (SQL state 57P01: " + KILLED + ")",
                ConsoleLogFilter.text(record));
    }

    @Test
    void aConnectionTheDatabaseRefusedIsOneWarningLine() {
        // As Hibernate reports the pool's failure to open a connection to a database closed to new sessions.
        SQLException refused = PostgresTestDatabase.refusedConnection();
        Exception failure = new RuntimeException("Unable to acquire JDBC Connection [" + refused.getMessage() + "]",
                refused);
        ExtLogRecord record = methodFailed(new DeliveryFailedException("m-9", "points-ledger", 1, failure));

        assertTrue(filter.isLoggable(record));
        assertEquals(org.jboss.logmanager.Level.WARN, record.getLevel());
        assertNull(record.getThrown(), "no stack trace");
        assertEquals("Message m-9 for consumer points-ledger failed on delivery attempt 1, rolled back and handed back"
                + " to the broker: no new database connection could be opened (SQL state 55000: "
                + refused.getMessage() + ")", ConsoleLogFilter.text(record));
    }

    @Test
    void aCommitOnALostConnectionSaysItMayHaveTakenEffect() {
        // Narayana's failed commit: the resource's failure is a suppressed exception, the driver's its cause.
        XAException commit = new XAException("Error trying to transactionCommit local transaction: " + KILLED);
        commit.initCause(new SQLException("An I/O error occurred while sending to the backend.", "08006"));
        RollbackException failure = new RollbackException("ARJUNA016053: Could not commit transaction.");
        failure.addSuppressed(commit);
        ExtLogRecord record = methodFailed(new DeliveryFailedException("m-2", "points-ledger", 1, failure));

        assertTrue(filter.isLoggable(record));
        assertEquals(org.jboss.logmanager.Level.WARN, record.getLevel());
        assertNull(record.getThrown());
        assertEquals("Message m-2 for consumer points-ledger failed on delivery attempt 1 and was handed back to the"
                + " broker: the database connection was lost during the commit (SQL state 08006: An I/O error"
                + " occurred while sending to the backend.), which may have taken effect; if it did, the redelivery"
                + " is a duplicate", ConsoleLogFilter.text(record));
    }

    @Test
    void aTransactionRolledBackAtItsTimeoutIsOneWarningLine() {
        // A delivery held past the timeout (here by a silent database): the transaction manager rolls it back, and
        // the commit at the end of the method is refused; the statement that held it is no longer in the exception.
        RollbackException commit = new RollbackException("ARJUNA016102: The transaction is not active! Uid is"
                + " 0:ffff7f000001:90a9:6b15094a:198");
        assertOneTimedOutWarningLine("m-6", new DeliveryFailedException("m-6", "points-ledger", 1, commit,
                Duration.ofMillis(4_300), Duration.ofSeconds(3)));

        // Refused sooner than the timeout, the same exception is something else, and keeps its ERROR.
        DeliveryFailedException early = new DeliveryFailedException("m-7", "points-ledger", 1, commit,
                Duration.ofMillis(2_900), Duration.ofSeconds(3));
        ExtLogRecord kept = methodFailed(early);
        assertTrue(filter.isLoggable(kept));
        assertEquals(org.jboss.logmanager.Level.ERROR, kept.getLevel());
        assertSame(early, kept.getThrown());
        assertFalse(early.timedOut());
        // So does a commit that a resource refused (its failure beside the commit's), however long it ran.
        XAException serialization = new XAException("Error trying to transactionCommit local transaction");
        serialization.initCause(new SQLException("could not serialize access", "40001"));
        RollbackException refused = new RollbackException("ARJUNA016053: Could not commit transaction.");
        refused.addSuppressed(serialization);
        DeliveryFailedException slowCommit = new DeliveryFailedException("m-9", "points-ledger", 1, refused,
                Duration.ofSeconds(4), Duration.ofSeconds(3));
        assertFalse(slowCommit.timedOut());
        assertTrue(slowCommit.getMessage().endsWith("(cause: java.sql.SQLException: could not serialize access)"),
                slowCommit.getMessage());
        // And any other failure of a delivery that ran that long.
        DeliveryFailedException slowBug = new DeliveryFailedException("m-8", "points-ledger", 1,
                new IllegalStateException("a bug"), Duration.ofSeconds(5), Duration.ofSeconds(3));
        assertFalse(slowBug.timedOut());
        assertEquals(org.jboss.logmanager.Level.ERROR, methodFailedLevel(slowBug));
    }

    @Test
    void aDeliveryWhoseBatchWasRolledBackAtTheTimeoutIsOneWarningLine() {
        // Batched mode: the batch thread's transaction reached the timeout; the delivery's own may not have yet.
        BatchTimedOut batch = new BatchTimedOut(Duration.ofSeconds(3), new RuntimeException("query cancelled"));
        assertOneTimedOutWarningLine("m-10", new DeliveryFailedException("m-10", "points-ledger", 1, batch,
                Duration.ofMillis(3_200), Duration.ofSeconds(3)));
    }

    /** The failure is logged as one WARN line, without a stack trace, naming the 3 s transaction timeout. */
    private void assertOneTimedOutWarningLine(String messageId, DeliveryFailedException failure) {
        ExtLogRecord record = methodFailed(failure);
        assertTrue(filter.isLoggable(record));
        assertEquals(org.jboss.logmanager.Level.WARN, record.getLevel());
        assertNull(record.getThrown(), "no stack trace");
        assertEquals("Message " + messageId + " for consumer points-ledger failed on delivery attempt 1, rolled back"
                + " and handed back to the broker: its transaction outlived the transaction timeout (3s,"
                + " quarkus.transaction-manager.default-transaction-timeout) and the transaction manager rolled it"
                + " back; the database did not answer in time, or a lock held the delivery",
                ConsoleLogFilter.text(record));
    }

    /**
     * Poison whose dead-letter copy cannot be encoded fails every attempt the same way until the broker moves it: bad
     * input, one warning line per attempt, not an error with a stack trace that says nothing more.
     */
    @Test
    void poisonWhoseCopyCannotBeEncodedIsOneWarningLinePerAttempt() {
        String text = "The message (AMQP message-id m-6) is refused (body: must be JSON in a data section or an AMQP"
                + " string or binary value, got an AMQP array value) but its dead-letter copy cannot be written";
        DeadLetters.DeadLetterImpossibleException impossible = new DeadLetters.DeadLetterImpossibleException(text,
                new NullPointerException("Cannot invoke \"DescribedTypeConstructor.encode\""));
        assertOneWarningLine(impossible, text);
    }

    @Test
    void poisonWhileTheDeadLetterChannelIsClosedIsOneWarningLinePerAttempt() {
        String text = "The message (AMQP message-id m-7) is refused (body: malformed JSON) but the dead-letter channel"
                + " is closed";
        DeadLetters.DeadLetterLinkLostException lost = new DeadLetters.DeadLetterLinkLostException(text);
        assertOneWarningLine(lost, text);
    }

    /** The delivery's failure, alone or wrapped, is one WARN line with the failure's text and no stack trace. */
    private void assertOneWarningLine(Throwable failure, String text) {
        for (Throwable thrown : new Throwable[] { failure, new RuntimeException("wrapped", failure) }) {
            ExtLogRecord record = methodFailed(thrown);

            assertTrue(filter.isLoggable(record));
            assertEquals(org.jboss.logmanager.Level.WARN, record.getLevel());
            assertNull(record.getThrown(), "no stack trace");
            assertEquals(text, ConsoleLogFilter.text(record));
        }
    }

    /**
     * The connector's own line for the nack that follows every failed delivery says less than the failure's line
     * before it (no message, no cause): dropped. Its other lines stay.
     */
    @Test
    void theConnectorsNackLineIsDroppedAndItsOtherLinesStay() {
        ExtLogRecord nacked = new ExtLogRecord(org.jboss.logmanager.Level.WARN, "SRMSG16226: A message sent to"
                + " channel `%s` has been nacked, ignoring the message and marking the AMQP message as modified with"
                + " `delivery-failed`", ExtLogRecord.FormatStyle.PRINTF, DeliveryFailureLogFilterTest.class.getName());
        nacked.setLoggerName("io.smallrye.reactive.messaging.amqp");
        nacked.setParameters(new Object[] { "points-granted" });
        assertFalse(filter.isLoggable(nacked), "the failure's own line said it");

        ExtLogRecord listening = new ExtLogRecord(org.jboss.logmanager.Level.INFO, "SRMSG16203: AMQP Receiver"
                + " listening address %s", ExtLogRecord.FormatStyle.PRINTF,
                DeliveryFailureLogFilterTest.class.getName());
        listening.setLoggerName("io.smallrye.reactive.messaging.amqp");
        listening.setParameters(new Object[] { "points-granted" });
        assertTrue(filter.isLoggable(listening));
        assertEquals("SRMSG16203: AMQP Receiver listening address points-granted", ConsoleLogFilter.text(listening));
    }

    @Test
    void anyOtherFailureKeepsItsErrorAndItsStackTrace() {
        DeliveryFailedException missingTable = new DeliveryFailedException("m-3", "points-ledger", 1,
                new RuntimeException("could not execute statement", new SQLException("relation does not exist",
                        "42P01")));
        DeliveryFailedException bug = new DeliveryFailedException("m-4", "points-ledger", 1,
                new IllegalStateException("a bug"));
        for (DeliveryFailedException failure : new DeliveryFailedException[] { missingTable, bug }) {
            ExtLogRecord record = methodFailed(failure);
            assertTrue(filter.isLoggable(record));
            assertEquals(org.jboss.logmanager.Level.ERROR, record.getLevel(), failure.getMessage());
            assertSame(failure, record.getThrown(), "the stack trace stays: " + failure.getMessage());
        }
        assertFalse(missingTable.connectionLost());
        assertTrue(missingTable.getMessage().endsWith("rolled back and handed back to the broker:"
                + " java.lang.RuntimeException: could not execute statement (cause: java.sql.SQLException: relation"
                + " does not exist)"), missingTable.getMessage());
    }

    @Test
    void aFailedCommitNamesTheCauseNarayanaSuppressed() {
        XAException commit = new XAException("Error trying to transactionCommit local transaction");
        commit.initCause(new SQLException("could not serialize access", "40001"));
        RollbackException failure = new RollbackException("ARJUNA016053: Could not commit transaction.");
        failure.addSuppressed(commit);
        DeliveryFailedException named = new DeliveryFailedException("m-5", "points-ledger", 1, failure);
        assertFalse(named.connectionLost());
        assertTrue(named.getMessage().endsWith("jakarta.transaction.RollbackException: ARJUNA016053: Could not"
                + " commit transaction. (cause: java.sql.SQLException: could not serialize access)"),
                named.getMessage());
    }

    @Test
    void narayanasReportOfTheSameLossIsDropped() {
        XAException rollback = new XAException("Error trying to transactionRollback local transaction: This"
                + " connection has been closed.");
        rollback.initCause(new SQLException("This connection has been closed.", "08003"));
        assertFalse(filter.isLoggable(narayana("ARJUNA016045: attempted rollback of {0} ({1}) failed with exception"
                + " code {2}", rollback)), "the delivery's own line says it");
        XAException commit = new XAException("Error trying to transactionCommit local transaction: " + KILLED);
        commit.initCause(new SQLException(KILLED, "57P01"));
        assertFalse(filter.isLoggable(narayana("ARJUNA016039: onePhaseCommit on {0} ({1}) failed with exception {2}",
                commit)));

        XAException other = new XAException("Error trying to transactionRollback local transaction");
        other.initCause(new SQLException("out of memory", "53200"));
        ExtLogRecord kept = narayana("ARJUNA016045: attempted rollback of {0} ({1}) failed with exception code {2}",
                other);
        assertTrue(filter.isLoggable(kept), "another failure of a rollback is kept");
        assertSame(other, kept.getThrown());
    }

    private java.util.logging.Level methodFailedLevel(Throwable thrown) {
        ExtLogRecord record = methodFailed(thrown);
        assertTrue(filter.isLoggable(record));
        return record.getLevel();
    }

    private static ExtLogRecord methodFailed(Throwable thrown) {
        ExtLogRecord record = new ExtLogRecord(org.jboss.logmanager.Level.ERROR,
                "SRMSG00200: The method %s has thrown an exception", ExtLogRecord.FormatStyle.PRINTF,
                DeliveryFailureLogFilterTest.class.getName());
        record.setLoggerName("io.smallrye.reactive.messaging.provider");
        record.setParameters(new Object[] { "io.pointsinbox.messaging.PointsGrantedConsumer#onMessage" });
        record.setThrown(thrown);
        return record;
    }

    private static ExtLogRecord narayana(String message, Throwable thrown) {
        ExtLogRecord record = new ExtLogRecord(org.jboss.logmanager.Level.WARN, message,
                ExtLogRecord.FormatStyle.MESSAGE_FORMAT, DeliveryFailureLogFilterTest.class.getName());
        record.setLoggerName("com.arjuna.ats.jta");
        record.setThrown(thrown);
        return record;
    }
}
