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
 * Deletes inbox rows older than the retention window, a bounded batch per statement so that no delete holds locks
 * for long. A PostgreSQL advisory lock makes one replica clean at a time; the others skip their turn.
 */
@ApplicationScoped
public class InboxRetention {

    /** Key of the advisory lock that elects the cleaning replica. */
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
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            if (!lock(connection, "pg_try_advisory_lock")) {
                registry.counter(RUNS, "result", "skipped").increment();
                LOG.debug("Inbox cleanup skipped: another replica holds the lock");
                return new Run(false, 0);
            }
            try {
                registry.counter(RUNS, "result", "ran").increment();
                LOG.debugf("Inbox cleanup started: rows received before %s", olderThan);
                long deleted = deleteBatches(connection, olderThan);
                registry.counter(DELETED).increment(deleted);
                LOG.infof("Inbox cleanup deleted %d rows received before %s", deleted, olderThan);
                return new Run(true, deleted);
            } finally {
                lock(connection, "pg_advisory_unlock");
                sample.stop(registry.timer(DURATION));
            }
        } catch (SQLException e) {
            LOG.warnf("Inbox cleanup failed, it will run again: %s", e.getMessage());
            return new Run(false, 0);
        }
    }

    private long deleteBatches(Connection connection, Instant olderThan) throws SQLException {
        long total = 0;
        try (PreparedStatement delete = connection.prepareStatement("""
                delete from inbox_message where id in (
                    select id from inbox_message where received_at < ? order by received_at limit ?)
                """)) {
            delete.setTimestamp(1, Timestamp.from(olderThan));
            delete.setInt(2, config.batchSize());
            int deleted;
            do {
                deleted = delete.executeUpdate();
                total += deleted;
            } while (deleted == config.batchSize());
        }
        return total;
    }

    private static boolean lock(Connection connection, String function) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("select " + function + "(?)")) {
            statement.setLong(1, LOCK_KEY);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
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
