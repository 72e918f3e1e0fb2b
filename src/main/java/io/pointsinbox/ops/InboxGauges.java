package io.pointsinbox.ops;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;

/**
 * Inbox size and age of its oldest row, for sizing the retention window. Both are cheap: the row count is the
 * planner's estimate, the oldest row comes from the received_at index; values are cached for ten seconds.
 */
@ApplicationScoped
public class InboxGauges {

    private static final long CACHE_NANOS = 10_000_000_000L;

    private final DataSource dataSource;
    private volatile long readAt;
    private volatile double rows = Double.NaN;
    private volatile double oldestAgeSeconds = Double.NaN;

    InboxGauges(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    void register(@Observes StartupEvent event, MeterRegistry registry) {
        Gauge.builder("points.inbox.rows", this, gauges -> gauges.refresh().rows)
                .description("Inbox rows (live-tuple statistic, no table scan)").register(registry);
        Gauge.builder("points.inbox.oldest.age", this, gauges -> gauges.refresh().oldestAgeSeconds)
                .description("Age of the oldest inbox row").baseUnit("seconds").register(registry);
    }

    private InboxGauges refresh() {
        if (System.nanoTime() - readAt < CACHE_NANOS) {
            return this;
        }
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("""
                        select (select n_live_tup from pg_stat_user_tables where relid = 'inbox_message'::regclass),
                               (select extract(epoch from now() - min(received_at)) from inbox_message)
                        """)) {
            rs.next();
            rows = rs.getDouble(1);
            double age = rs.getDouble(2);
            oldestAgeSeconds = rs.wasNull() ? 0 : age;
        } catch (SQLException e) {
            rows = Double.NaN;
            oldestAgeSeconds = Double.NaN;
        }
        readAt = System.nanoTime();
        return this;
    }
}
