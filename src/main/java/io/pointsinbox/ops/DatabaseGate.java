package io.pointsinbox.ops;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.messaging.GracefulStop;
import io.pointsinbox.messaging.PointsGrantedConsumer;
import io.smallrye.reactive.messaging.ChannelRegistry;
import io.smallrye.reactive.messaging.PausableChannel;

/**
 * Pauses AMQP consumption while the database is unreachable, so that messages wait on the broker instead of
 * burning their delivery attempts and landing on the dead-letter address; resumes when the database answers again.
 * A failed delivery triggers the check; while paused, the database is probed at a fixed interval.
 */
@ApplicationScoped
public class DatabaseGate {

    private static final Logger LOG = Logger.getLogger(DatabaseGate.class);

    private final ChannelRegistry channels;
    private final DataSource dataSource;
    private final GracefulStop stop;
    private final long retryMillis;
    private final AtomicBoolean checking = new AtomicBoolean();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "points-database-gate");
        thread.setDaemon(true);
        return thread;
    });

    DatabaseGate(ChannelRegistry channels, DataSource dataSource, GracefulStop stop, PointsConfig config) {
        this.channels = channels;
        this.dataSource = dataSource;
        this.stop = stop;
        this.retryMillis = config.databaseRetryInterval().toMillis();
    }

    /** Paused for a database outage (a pause for shutdown is {@link GracefulStop}'s). */
    public boolean paused() {
        PausableChannel channel = channels.getPausable(PointsGrantedConsumer.CHANNEL);
        return channel != null && channel.isPaused() && !stop.stopping();
    }

    void onFailure(@Observes DeliveryFailed failure) {
        if (checking.compareAndSet(false, true)) {
            executor.execute(this::check);
        }
    }

    private void check() {
        PausableChannel channel = channels.getPausable(PointsGrantedConsumer.CHANNEL);
        if (stop.stopping()) {
            checking.set(false);
            return;
        }
        if (databaseAnswers()) {
            checking.set(false);
            if (channel != null && channel.isPaused() && !stop.stopping()) {
                channel.resume();
                LOG.info("Database reachable again: AMQP consumption resumed");
            }
            return;
        }
        if (channel != null && !channel.isPaused()) {
            channel.pause();
            LOG.warnf("Database unreachable: AMQP consumption paused, probing every %d ms", retryMillis);
        }
        executor.schedule(this::check, retryMillis, TimeUnit.MILLISECONDS);
    }

    private boolean databaseAnswers() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(5);
            statement.execute("select 1");
            return true;
        } catch (SQLException e) {
            LOG.debugf("Database probe failed: %s", e.getMessage());
            return false;
        }
    }

    @PreDestroy
    void stop() {
        executor.shutdownNow();
    }
}
