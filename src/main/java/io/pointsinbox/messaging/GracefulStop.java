package io.pointsinbox.messaging;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.reactive.messaging.ChannelRegistry;
import io.smallrye.reactive.messaging.PausableChannel;

/**
 * Stops consumption cleanly on SIGTERM. The connector holds up to a thousand deliveries it has received but not yet
 * handed to a worker; if they reached the handler after Hibernate closed, each would fail and be handed back with
 * its delivery count raised, so every rolling restart would burn one delivery attempt of a whole prefetch window
 * and a few restarts could dead-letter valid messages. Instead: pause the channel when shutdown starts, let the
 * transactions already running commit and be acknowledged (bounded by {@code quarkus.shutdown.timeout}), and leave
 * everything else unsettled; the broker takes it back uncounted when the connection closes.
 */
@ApplicationScoped
public class GracefulStop {

    private static final Logger LOG = Logger.getLogger(GracefulStop.class);
    private static final long QUIET = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200);

    private final ChannelRegistry channels;
    private final TransactionSynchronizationRegistry transactions;
    private final Duration timeout;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile boolean drained;

    GracefulStop(ChannelRegistry channels, TransactionSynchronizationRegistry transactions,
            @ConfigProperty(name = "quarkus.shutdown.timeout") Duration timeout) {
        this.channels = channels;
        this.transactions = transactions;
        this.timeout = timeout;
    }

    /** True once shutdown has begun: nothing may resume the channel after that. */
    public boolean stopping() {
        return stopping.get();
    }

    /**
     * Called at the start of a delivery, inside its transaction: counts it as in flight until the transaction
     * completes. A delivery that arrives after the drain finished cannot be processed any more (the persistence
     * layer is closing); it fails, and the broker redelivers it to another replica.
     */
    void begin() {
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

    void onStart(@Observes StartupEvent event) {
        ShutdownDisconnectFilter.running();
    }

    void onShutdownDelay(@Observes ShutdownDelayInitiatedEvent event) {
        pause();
    }

    void onShutdown(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) ShutdownEvent event) {
        pause();
        long deadline = System.nanoTime() + timeout.toNanos();
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
        int left = inFlight.get();
        if (left > 0) {
            LOG.warnf("Shutdown timeout %s reached with %d deliveries still in flight: they roll back and are"
                    + " redelivered", timeout, left);
        } else {
            LOG.info("AMQP consumption stopped: in-flight deliveries committed, the rest return to the broker");
        }
    }

    private void pause() {
        if (stopping.compareAndSet(false, true)) {
            ShutdownDisconnectFilter.stopping();
            PausableChannel channel = channels.getPausable(PointsGrantedConsumer.CHANNEL);
            if (channel != null) {
                channel.pause();
            }
        }
    }
}
