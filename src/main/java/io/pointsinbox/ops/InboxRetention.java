package io.pointsinbox.ops;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pointsinbox.config.RetentionConfig;
import io.quarkus.scheduler.Scheduled;

/**
 * Deletes inbox rows older than the retention window, a bounded batch per transaction so that no delete holds locks
 * for long. Each batch first takes a transaction-level PostgreSQL advisory lock, so one replica deletes at a time:
 * a replica whose turn finds the lock taken skips it, and a run that finds it taken between two batches stops there,
 * leaving the rest to the replica that holds it. The lock ends with its transaction, so a pooler in transaction mode
 * cannot leave it held.
 */
@ApplicationScoped
public class InboxRetention {

    /** Key of the advisory lock that each delete batch takes, so that one replica deletes at a time. */
    static final long LOCK_KEY = 0x706f696e7473L;

    static final String DELETED = "points.inbox.retention.deleted";
    static final String DURATION = "points.inbox.retention.duration";
    static final String RUNS = "points.inbox.retention.runs";

    private static final Logger LOG = Logger.getLogger(InboxRetention.class);

    private final DataSource dataSource;
    private final RetentionConfig config;
    private final MeterRegistry registry;

    InboxRetention(DataSource dataSource, RetentionConfig config, MeterRegistry registry) {
        this.dataSource = dataSource;
        this.config = config;
        this.registry = registry;
    }

    /** Its series exist from start-up, at zero, whether or not this replica ever runs the cleanup. */
    void registerAtStartup(@jakarta.enterprise.event.Observes io.quarkus.runtime.StartupEvent event) {
        registry.counter(DELETED);
        registry.counter(RUNS, "result", "ran");
        registry.counter(RUNS, "result", "skipped");
        registry.timer(DURATION);
    }

    /** The outcome of one cleanup run: whether this replica held the lock, and how many rows it deleted. */
    public record Run(boolean ran, long deleted) {
    }

    @Scheduled(every = "${points.retention.cleanup-interval}", delayed = "${points.retention.cleanup-interval}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Disabled.class)
    void scheduled() {
        cleanup(Instant.now().minus(config.window()));
    }

    public Run cleanup(Instant olderThan) {
        Timer.Sample sample = Timer.start(registry);
        boolean ran = false;
        boolean yielded = false;
        long deleted = 0;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement lock = connection.prepareStatement("select pg_try_advisory_xact_lock(?)");
                    PreparedStatement delete = connection.prepareStatement("""
                            delete from inbox_message where id in (
                                select id from inbox_message where received_at < ? order by received_at limit ?)
                            """)) {
                lock.setLong(1, LOCK_KEY);
                delete.setTimestamp(1, Timestamp.from(olderThan));
                delete.setInt(2, config.batchSize());
                while (true) {
                    // Each batch is a transaction of its own that takes the lock first and frees it at commit, so
                    // no lock outlives its transaction, even when a pooler runs the next one in another session.
                    if (!locked(lock)) {
                        connection.rollback();
                        yielded = ran;
                        break;
                    }
                    if (!ran) {
                        ran = true;
                        registry.counter(RUNS, "result", "ran").increment();
                        LOG.debugf("Inbox cleanup started: rows received before %s", olderThan);
                    }
                    LOG.debug("Inbox cleanup batch started, lock held");
                    int batch = delete.executeUpdate();
                    LOG.debugf("Inbox cleanup batch deleted %d rows, committing", batch);
                    connection.commit();
                    deleted += batch;
                    registry.counter(DELETED).increment(batch);
                    if (batch < config.batchSize()) {
                        break;
                    }
                }
            } catch (SQLException e) {
                rollbackQuietly(connection);
                throw e;
            }
        } catch (SQLException e) {
            LOG.warnf("Inbox cleanup failed after deleting %d rows, it will run again: %s", deleted, e.getMessage());
            return new Run(ran, deleted);
        } finally {
            if (ran) {
                sample.stop(registry.timer(DURATION));
            }
        }
        if (!ran) {
            registry.counter(RUNS, "result", "skipped").increment();
            LOG.debug("Inbox cleanup skipped: another replica holds the lock");
            return new Run(false, 0);
        }
        // A run with nothing to delete is the usual case once the inbox is in its steady state: not worth a line.
        LOG.logf(deleted > 0 ? Logger.Level.INFO : Logger.Level.DEBUG,
                "Inbox cleanup deleted %d rows received before %s%s", deleted, olderThan,
                yielded ? "; another replica holds the lock and goes on" : "");
        return new Run(true, deleted);
    }

    private static boolean locked(PreparedStatement lock) throws SQLException {
        try (ResultSet rs = lock.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            LOG.debugf("Inbox cleanup rollback failed: %s", e.getMessage());
        }
    }

    /** Skips the scheduled run when retention is switched off on this instance. */
    @ApplicationScoped
    public static class Disabled implements Scheduled.SkipPredicate {
        private final RetentionConfig config;

        Disabled(RetentionConfig config) {
            this.config = config;
        }

        @Override
        public boolean test(io.quarkus.scheduler.ScheduledExecution execution) {
            return !config.enabled();
        }
    }
}
