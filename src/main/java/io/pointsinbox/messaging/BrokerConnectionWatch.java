package io.pointsinbox.messaging;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Gauge;
import io.pointsinbox.config.PointsConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.health.HealthReport;
import io.smallrye.reactive.messaging.providers.extension.HealthCenter;
import io.vertx.amqp.impl.AmqpConnectionImpl;

/**
 * Says in the log when the inbound channel has no connection to the broker. The AMQP client reconnects on its own
 * and logs nothing while a broker does not answer (a refused connection is retried inside the client), so a pod
 * started before its broker would only show a readiness probe failing. One warning once the connection has been
 * missing for two checks in a row, a reminder every minute, and one line when it is back. The gauge
 * {@code points_inbox_broker_connected{channel}} says the same to an alert: 1 while the inbound channel has its
 * connection, 0 while it has none. (The Vert.x client's own {@code amqp_active_connections} could not, and is kept
 * out: {@link StaleConnectionGauge}.)
 * <p>
 * It also finds a channel that stopped reconnecting. The AMQP connector attaches the channel's receiver once a
 * connection is open; when that connection is lost before the broker answers the attach (a broker restarting, or
 * falling silent, at that very moment), the attach never completes, nothing fails, and the connector neither
 * reconnects nor reports it: the pod would stay up, not ready, consuming nothing, for good. So while the channel has
 * no connection, each check also opens a connection of its own with the channel's settings ({@link BrokerProbe}).
 * When the broker has accepted every one of them for {@link #stuckAfter} (ten reconnect intervals, at least 10 s),
 * far longer than the connector takes to reconnect, the channel is stuck: one error line, and liveness goes down
 * ({@link ChannelLiveness}) so that Kubernetes restarts the pod, the only way to rebuild the channel.
 * <p>
 * And a channel that lost its receiver link on a connection that stays open (the broker detached the link: its queue
 * deleted, its consumer closed from the console): the connector then ends the channel's stream without an error and
 * builds no new link, so nothing is consumed and nothing is logged. While the channel has its connection, each check
 * looks at its receiver; after two checks without an open one, the connection is closed, with one warning, and the
 * connector reconnects and attaches a new link ({@link #closeLinklessConnections()}).
 */
@ApplicationScoped
@Startup // created with the application, so that a pod that never had a connection counts from its start
public class BrokerConnectionWatch {

    private static final Duration REMINDER = Duration.ofMinutes(1);

    private static final Logger LOG = Logger.getLogger(BrokerConnectionWatch.class);

    private final HealthCenter health;
    private final ConsumptionSwitch consumption;
    private final String broker;
    private final long reconnectInterval;

    private final BrokerProbe probe;
    private final ConnectorLinks links;
    private final DeadLetters deadLetters;
    private final String deadLetterAddress;
    private boolean deadLetterLinkLostSaid;
    private final Duration stuckAfter;

    private final Instant created = Instant.now();
    private boolean everConnected;
    private boolean missedLastCheck;
    private volatile Instant missingSince;
    private Instant remindedAt;
    /** Since when every probe while the channel had no connection was accepted; null while one was not. */
    private Instant answeringSince;
    private volatile boolean stuck;
    /** The connections that had receivers but no open one at the last check. */
    private Set<AmqpConnectionImpl> linkless = Set.of();

    BrokerConnectionWatch(HealthCenter health, ConsumptionSwitch consumption, BrokerProbe probe,
            ConnectorLinks links, DeadLetters deadLetters, PointsConfig points, Config config) {
        this.health = health;
        this.consumption = consumption;
        this.probe = probe;
        this.links = links;
        this.deadLetters = deadLetters;
        this.deadLetterAddress = points.deadLetterAddress();
        this.broker = broker(config);
        this.reconnectInterval = reconnectInterval(config);
        this.stuckAfter = Duration.ofSeconds(Math.max(10, 10 * reconnectInterval));
    }

    /**
     * Seconds between the connector's reconnection attempts, for the log ({@code AMQP_RECONNECT_INTERVAL}; the
     * connector's own default, 10, when it is unset). Read as text: a value that is not a whole number is refused
     * by name at start-up ({@code StartupChecks}), which must not be pre-empted by a conversion error here.
     */
    static long reconnectInterval(Config config) {
        try {
            return config.getOptionalValue("amqp-reconnect-interval", String.class).map(v -> Long.parseLong(v.trim()))
                    .orElse(10L);
        } catch (NumberFormatException e) {
            return 10L;
        }
    }

    /** The inbound channel's broker, host:port, for the log. */
    static String broker(Config config) {
        String channel = "mp.messaging.incoming." + PointsGrantedConsumer.CHANNEL + ".";
        return setting(config, channel + "host", "amqp-host").orElse("?") + ":"
                + setting(config, channel + "port", "amqp-port").orElse("5672");
    }

    private static Optional<String> setting(Config config, String channelKey, String globalKey) {
        return config.getOptionalValue(channelKey, String.class).or(() -> config.getOptionalValue(globalKey,
                String.class));
    }

    void register(@Observes StartupEvent event, MeterRegistry registry) {
        Gauge.builder("points.inbox.broker.connected", this, watch -> watch.connected() ? 1 : 0)
                .description("1 while the inbound channel has its connection to the AMQP broker, 0 while it has none")
                .tag("channel", PointsGrantedConsumer.CHANNEL).strongReference(true).register(registry);
    }

    /** Whether the inbound channel has its connection to the broker now, as the connector's readiness reports it. */
    boolean connected() {
        return health.getReadiness().getChannels().stream()
                .filter(info -> PointsGrantedConsumer.CHANNEL.equals(info.getChannel()))
                .allMatch(HealthReport.ChannelInfo::isOk);
    }

    /** Whether the inbound channel stopped reconnecting while the broker accepts connections (see above). */
    public boolean stuck() {
        return stuck;
    }

    /** How long the broker must accept connections, while the channel has none, before the channel counts as stuck. */
    public Duration stuckAfter() {
        return stuckAfter;
    }

    /**
     * Since when the inbound channel has had no connection, as seen by the last checks (the first check that found it
     * missing: the connection was lost up to one check interval, 5 s, before); empty while it has one.
     */
    public Optional<Instant> missingSince() {
        return Optional.ofNullable(missingSince);
    }

    @Scheduled(every = "5s", delayed = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    synchronized void check() {
        if (consumption.stopping()) {
            return;
        }
        checkDeadLetterLink();
        boolean connected = connected();
        Instant now = Instant.now();
        if (connected) {
            if (missingSince != null && remindedAt != null) {
                LOG.infof("The AMQP broker at %s answers again (channel %s), after about %d s without a connection",
                        broker, PointsGrantedConsumer.CHANNEL, Duration.between(missingSince, now).toSeconds());
            }
            everConnected = true;
            missedLastCheck = false;
            missingSince = null;
            remindedAt = null;
            answeringSince = null;
            stuck = false;
            if (closeLinklessConnections() > 0) {
                LOG.warnf("Channel %s had its connection to the AMQP broker at %s but no receiver link for two checks:"
                        + " the broker detached it (its queue deleted, or its consumer closed?), which ends the AMQP"
                        + " connector's stream without an error; the connection is closed so that the connector opens"
                        + " a new one, with a new link", PointsGrantedConsumer.CHANNEL, broker);
            }
            return;
        }
        if (!missedLastCheck) {
            missedLastCheck = true;
            // A pod that never had a connection has been without one since it started.
            missingSince = everConnected ? now : created;
            return;
        }
        if (stuck) {
            return; // said once; liveness is down until the pod is restarted
        }
        // Said before the probe, which may wait up to 5 s for a broker that is starting: said after it, the line
        // could follow the connector's own "Connection with AMQP broker established".
        if (remindedAt == null || Duration.between(remindedAt, now).compareTo(REMINDER) >= 0) {
            remindedAt = now;
            LOG.warnf("No connection to the AMQP broker at %s (channel %s) for at least %d s: reconnecting every %d"
                    + " s; messages wait on the broker and readiness is down", broker, PointsGrantedConsumer.CHANNEL,
                    Duration.between(missingSince, now).toSeconds(), reconnectInterval);
        }
        probeWhileMissing(now);
    }

    /** Says once that the dead-letter channel is closed for good: liveness is down from then on. */
    private void checkDeadLetterLink() {
        if (!deadLetterLinkLostSaid && deadLetters.linkLost()) {
            deadLetterLinkLostSaid = true;
            LOG.errorf("The AMQP connector closed the dead-letter channel to %s at %s for good: the broker refused its"
                    + " link (the connector's SRMSG16225 line names the reason: a missing permission to send there, an"
                    + " address the broker does not create), or its reconnection attempts (AMQP_RECONNECT_ATTEMPTS) are"
                    + " spent. The connector then closes its clients, the inbound channel's included, and never"
                    + " attaches the dead-letter link again. Liveness is down so that the pod is restarted, which"
                    + " attaches it once the broker allows it; messages wait on the broker"
                    + " (docs/operations.md#brokers)",
                    deadLetterAddress, broker);
        }
    }

    /**
     * Closes each connection that had no open receiver link at this check and the one before, though receivers were
     * attached on it, and returns how many. A receiver link the broker detaches (its queue deleted, its consumer closed
     * from the console) ends the connector's stream of that channel without an error, on a connection that stays open,
     * and the connector builds a new link only on a new connection: without this the channel consumes nothing, and
     * says nothing, until a restart. Two checks in a row, so that a link closing after an oversized message (its
     * connection closes 250 ms later) is left to that close.
     */
    private int closeLinklessConnections() {
        Set<AmqpConnectionImpl> now = Set.copyOf(links.linklessConnections());
        int closed = 0;
        for (AmqpConnectionImpl connection : now) {
            if (linkless.contains(connection) && ConnectorLinks.disconnectLater(connection)) {
                closed++;
            }
        }
        linkless = now;
        return closed;
    }

    private void probeWhileMissing(Instant now) {
        if (!probe.answers(Duration.ofSeconds(5))) {
            answeringSince = null;
            return;
        }
        if (answeringSince == null) {
            answeringSince = now;
        }
        if (Duration.between(answeringSince, now).compareTo(stuckAfter) >= 0) {
            stuck = true;
            LOG.errorf("The AMQP broker at %s has accepted every connection of this service for %d s, but channel %s"
                    + " has had none for at least %d s: the AMQP connector stopped reconnecting it. Liveness is down so"
                    + " that the pod is restarted; messages wait on the broker", broker,
                    Duration.between(answeringSince, now).toSeconds(), PointsGrantedConsumer.CHANNEL,
                    Duration.between(missingSince, now).toSeconds());
        }
    }
}
