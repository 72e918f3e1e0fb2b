package io.pointsinbox.messaging;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.pointsinbox.config.Durations;
import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.ops.DatabaseConnectionLoss;
import io.pointsinbox.ops.IdleConnections;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.reactive.messaging.ChannelRegistry;
import io.smallrye.reactive.messaging.PausableChannel;

/**
 * The one place that decides whether deliveries run. Two signals hold them: a failed delivery whose database does not
 * answer, and shutdown. Both come from explicit calls: {@link AwaitsDatabase} reports every failed delivery
 * ({@link #awaitDatabaseVerdict()}), the lifecycle its events.
 * <p>
 * A database outage closes a gate in front of every delivery's transaction ({@link AwaitsDatabase}): the deliveries
 * in flight, at most {@code points.concurrency}, wait there until a probe finds the database again, and no further
 * delivery reaches the handler meanwhile, so an outage never drains the queue into the dead-letter address. The gate
 * is used instead of pausing and resuming the channel: the connector's pausable channel hands its buffer back on
 * {@code resume()} from the resuming thread while new deliveries and requests arrive on others, and under that race
 * it can request more than the channel's concurrency, or strand a delivery in its buffer.
 * <p>
 * On shutdown the connector holds up to about 512 prefetched deliveries (the link credit of POINTS_LINK_CREDIT and
 * an internal queue of 256; fault/PrefetchWindowIT); if they reached the handler after Hibernate closed, each would
 * fail with its delivery count raised, and every rolling restart would burn an attempt of a whole prefetch window.
 * So: pause the channel when shutdown starts (it is never resumed), let the transactions
 * already running commit and be acknowledged (bounded by {@code quarkus.shutdown.timeout}), leave the rest unsettled
 * for the broker to take back, uncounted, when the connection closes.
 */
@ApplicationScoped
public class ConsumptionSwitch {

    private static final Logger LOG = Logger.getLogger(ConsumptionSwitch.class);
    private static final long QUIET = TimeUnit.MILLISECONDS.toNanos(200);

    private final ChannelRegistry channels;
    private final DataSource dataSource;
    private final TransactionSynchronizationRegistry transactions;
    private final Duration shutdownTimeout;
    private final long retryMillis;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger inHandler = new AtomicInteger();
    private final AtomicInteger mostInHandler = new AtomicInteger();
    /** Every delivery that has reached the handler since the start: the progress {@link StalledConsumption} watches. */
    private final AtomicLong entered = new AtomicLong();
    /** Longest a probe waits for the database's answer. */
    private static final int PROBE_SECONDS = 5;
    /** Longest a failed delivery waits for the probe: its connection attempt and its 5 s bound. */
    private static final long VERDICT_WAIT_SECONDS = 12;

    /** Complete while the database answers; a new, incomplete one while it does not. */
    private volatile CompletableFuture<Void> databaseBack = CompletableFuture.completedFuture(null);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean probing = new AtomicBoolean();
    /**
     * Completed once the current round of probes has judged the database a first time (and closed the gate if down).
     */
    private volatile CompletableFuture<Void> firstVerdict = CompletableFuture.completedFuture(null);
    private volatile boolean drained;
    private final ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "points-database-probe");
        thread.setDaemon(true);
        return thread;
    });

    ConsumptionSwitch(ChannelRegistry channels, DataSource dataSource, TransactionSynchronizationRegistry transactions,
            @ConfigProperty(name = "quarkus.shutdown.timeout") Duration shutdownTimeout, PointsConfig config) {
        this.channels = channels;
        this.dataSource = dataSource;
        this.transactions = transactions;
        this.shutdownTimeout = shutdownTimeout;
        this.retryMillis = config.databaseRetryInterval().toMillis();
    }

    /** Deliveries wait because the database does not answer (shutdown is not an outage). */
    public boolean pausedForOutage() {
        return !databaseBack.isDone() && !stopping.get();
    }

    /** The most deliveries that have been in the handler at once, waiting for the database included. */
    public int mostInHandler() {
        return mostInHandler.get();
    }

    /**
     * Before a delivery's transaction: waits while the database is known not to answer. A delivery still waiting when
     * shutdown has let the running transactions finish is not processed: it fails and goes back to the broker, so
     * that the deliveries held by an outage do not hold up the exit.
     */
    void enterHandler() {
        entered.incrementAndGet();
        int now = inHandler.incrementAndGet();
        if (now > mostInHandler.get()) {
            mostInHandler.accumulateAndGet(now, Math::max);
        }
        CompletableFuture<Void> gate = databaseBack;
        if (gate.isDone() && !gate.isCompletedExceptionally()) {
            return;
        }
        try {
            gate.get();
        } catch (InterruptedException e) {
            inHandler.decrementAndGet();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the database: back to the broker", e);
        } catch (ExecutionException e) {
            inHandler.decrementAndGet();
            throw new IllegalStateException("shutting down while the database does not answer: this delivery goes"
                    + " back to the broker");
        }
    }

    void leaveHandler() {
        inHandler.decrementAndGet();
    }

    /** How many deliveries are in the handler now, waiting for the database included. */
    int inHandler() {
        return inHandler.get();
    }

    /** How many deliveries have reached the handler since the start. */
    long handlerEntries() {
        return entered.get();
    }

    /** True once shutdown has begun: nothing resumes consumption after that. */
    public boolean stopping() {
        return stopping.get();
    }

    /**
     * At the start of a delivery, inside its transaction: counts it as in flight until the transaction completes.
     * A delivery that arrives after the shutdown drain cannot be processed any more; it fails and goes back.
     */
    void deliveryStarted() {
        if (drained) {
            throw new IllegalStateException("shutting down: this delivery goes back to the broker");
        }
        inFlight.incrementAndGet();
        transactions.registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                inFlight.decrementAndGet();
            }
        });
    }

    /**
     * A delivery failed and will be redelivered: if the database does not answer, pause until it does. Returns the
     * verdict of the round of probes this failure joins. Synchronized so that a failure arriving while another starts a
     * round waits for that round's verdict, not the previous one's (a failure path only, never held while blocking).
     */
    private synchronized CompletableFuture<Void> deliveryFailed() {
        if (!stopping.get() && probing.compareAndSet(false, true)) {
            firstVerdict = new CompletableFuture<>();
            prober.execute(this::probe);
        }
        return firstVerdict;
    }

    /**
     * Called by a failed delivery once its transaction has rolled back, before it goes back to the broker: waits
     * (bounded) until the probe has judged the database. Otherwise a broker that redelivers at once could spend all
     * of a message's attempts on fast failures (a refused connection) before the probe had closed the gate.
     */
    void awaitDatabaseVerdict(Throwable failure) {
        if (DatabaseConnectionLoss.in(failure).isPresent()) {
            // The connection it used was lost: the pool's idle ones may lead to the same dead end.
            IdleConnections.discard(dataSource);
        }
        CompletableFuture<Void> verdict = deliveryFailed();
        try {
            verdict.get(VERDICT_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the failure goes back to the broker as it is
        }
    }

    private void probe() {
        // This round's verdict: the field changes only once the round ends (probing false) and another begins.
        CompletableFuture<Void> verdict = firstVerdict;
        if (stopping.get()) {
            verdict.complete(null);
            probing.set(false);
            return;
        }
        CompletableFuture<Void> gate = databaseBack;
        if (databaseAnswers()) {
            if (!gate.isDone()) {
                gate.complete(null);
                LOG.info("Database reachable again: AMQP consumption resumed");
            }
            verdict.complete(null);
            probing.set(false);
            return;
        }
        if (gate.isDone()) {
            databaseBack = new CompletableFuture<>();
            LOG.warnf("Database unreachable: AMQP consumption paused, deliveries wait; probing every %d ms",
                    retryMillis);
        }
        verdict.complete(null);
        prober.schedule(this::probe, retryMillis, TimeUnit.MILLISECONDS);
    }

    private boolean databaseAnswers() {
        try (Connection connection = dataSource.getConnection()) {
            // The query timeout is a cancel request sent over another connection, which a database that fell
            // silent never answers: the probe's reads are bounded on the socket too, then given back their bound.
            int socketTimeout = connection.getNetworkTimeout();
            connection.setNetworkTimeout(Runnable::run, PROBE_SECONDS * 1000);
            try (Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(PROBE_SECONDS);
                statement.execute("select 1");
            }
            connection.setNetworkTimeout(Runnable::run, socketTimeout);
            return true;
        } catch (SQLException e) {
            LOG.debugf("Database probe failed: %s", e.getMessage());
            IdleConnections.discard(dataSource);
            return false;
        }
    }

    void onStart(@Observes StartupEvent event) {
        BrokerDisconnectLogFilter.running();
    }

    void onShutdownDelay(@Observes ShutdownDelayInitiatedEvent event) {
        pauseForShutdown();
    }

    void onShutdown(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) ShutdownEvent event) {
        pauseForShutdown();
        long deadline = System.nanoTime() + shutdownTimeout.toNanos();
        // Idle means nothing in flight for a short quiet period: a delivery the connector handed over just before
        // the pause may still be on its way to a worker.
        long idleSince = inFlight.get() == 0 ? System.nanoTime() : Long.MAX_VALUE;
        while (System.nanoTime() < deadline && (idleSince == Long.MAX_VALUE || System.nanoTime() - idleSince < QUIET)) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (inFlight.get() > 0) {
                idleSince = Long.MAX_VALUE;
            } else if (idleSince == Long.MAX_VALUE) {
                idleSince = System.nanoTime();
            }
        }
        drained = true;
        // Deliveries waiting for the database would otherwise hold the exit until the executor gives up on them.
        databaseBack.completeExceptionally(new IllegalStateException("shutting down"));
        int left = inFlight.get();
        if (left > 0) {
            LOG.warnf("Shutdown timeout %s reached with %d deliveries still in flight: they roll back and are"
                    + " redelivered", Durations.readable(shutdownTimeout), left);
        } else {
            LOG.info("AMQP consumption stopped: in-flight deliveries committed, the rest return to the broker");
        }
    }

    private void pauseForShutdown() {
        if (stopping.compareAndSet(false, true)) {
            BrokerDisconnectLogFilter.stopping();
            PausableChannel channel = channel();
            if (channel != null) {
                channel.pause();
            }
        }
    }

    private PausableChannel channel() {
        return channels.getPausable(PointsGrantedConsumer.CHANNEL);
    }

    @PreDestroy
    void close() {
        prober.shutdownNow();
    }
}
