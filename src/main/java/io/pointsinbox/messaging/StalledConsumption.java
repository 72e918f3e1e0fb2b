package io.pointsinbox.messaging;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.pointsinbox.config.Durations;
import io.pointsinbox.config.PointsConfig;
import io.quarkus.scheduler.Scheduled;

/**
 * Finds an inbound stream that stopped taking deliveries while its connection and link are up. The broker sends a
 * message only against the link credit the receiver gives back as the connector's stream asks for more, and the
 * stream asks once a delivery's processing and acknowledgement have completed. Should one of them never complete (an
 * acknowledgement lost with a connection, a library's bug after a reconnection), the stream stops asking: the
 * messages already received stay unsettled in the connector's buffers, nothing fails, nothing is logged, and every
 * probe stays up, while the backlog waits on the broker for good. The symptom is unambiguous: the receiver holds
 * unsettled deliveries, no delivery is in the handler, and none has reached it for {@code points.stall-timeout}. A
 * healthy stream hands a held delivery to the handler within milliseconds, so nothing else looks like this: a
 * delivery running (however long its transaction waits), one held by a database outage ({@link ConsumptionSwitch}),
 * shutdown, or an idle queue (nothing held) never counts.
 * <p>
 * Once stalled: one error line and liveness down ({@link ChannelLiveness}), so that Kubernetes restarts the pod; the
 * connection closes with the process, the broker delivers the held messages again, and those that were applied but
 * not acknowledged are duplicates. Liveness comes back up by itself if the stream moves again before that.
 */
@ApplicationScoped
public class StalledConsumption {

    private static final Logger LOG = Logger.getLogger(StalledConsumption.class);

    /** Longest wait for a connection's event loop to count its link's unsettled deliveries. */
    private static final Duration COUNT_WAIT = Duration.ofSeconds(2);

    private final ConsumptionSwitch consumption;
    private final ConnectorLinks links;
    private final Duration timeout;

    /** Deliveries that had reached the handler at the previous check; -1 before the first, which counts as progress. */
    private long lastEntries = -1;
    /** The check since which deliveries have been held with none running and none starting; null while not. */
    private Instant heldSince;
    private volatile boolean stalled;

    StalledConsumption(ConsumptionSwitch consumption, ConnectorLinks links, PointsConfig config) {
        this.consumption = consumption;
        this.links = links;
        this.timeout = config.stallTimeout();
    }

    /** Whether the inbound stream holds deliveries it has stopped handing over (see above). */
    public boolean stalled() {
        return stalled;
    }

    /** The longest the stream may hold deliveries with none running and none starting; zero when not watched. */
    public Duration timeout() {
        return timeout;
    }

    @Scheduled(every = "5s", delayed = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    synchronized void check() {
        if (timeout.isZero() || consumption.stopping()) {
            return;
        }
        Instant now = Instant.now();
        long entries = consumption.handlerEntries();
        boolean started = entries != lastEntries;
        lastEntries = entries;
        Optional<Integer> held = started || consumption.pausedForOutage() || consumption.inHandler() > 0
                ? Optional.of(0) : links.unsettledDeliveries(COUNT_WAIT);
        if (held.orElse(0) == 0) {
            heldSince = null;
            if (stalled) {
                stalled = false;
                LOG.infof("Channel %s takes deliveries again: liveness is up", PointsGrantedConsumer.CHANNEL);
            }
            return;
        }
        if (heldSince == null) {
            heldSince = now; // the condition may have begun up to one check earlier: the bound is never cut short
        }
        Duration waited = Duration.between(heldSince, now);
        if (!stalled && waited.compareTo(timeout) >= 0) {
            stalled = true;
            LOG.errorf("Channel %s holds %d deliveries unsettled, and none has reached the service for %d s while the"
                    + " broker is connected and none runs: the AMQP connector's stream stopped taking them. Liveness is"
                    + " down so that the pod is restarted; the broker then delivers them again, and any already applied"
                    + " is a duplicate (POINTS_STALL_TIMEOUT, %s)", PointsGrantedConsumer.CHANNEL, held.get(),
                    waited.toSeconds(), Durations.readable(timeout));
        }
    }
}
