package io.pointsinbox.messaging;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.pointsinbox.config.PointsConfig;
import io.quarkus.runtime.StartupEvent;

/**
 * Says when the broker refuses the inbound channel's receiver link, or closes it with an error, on a connection that
 * stays open: an address that exists on the broker as MULTICAST only (Artemis, when a sender created it before this
 * service first attached, without asking for a queue), a user without the permission to consume, a queue the broker
 * does not create. The AMQP connector then attaches again every {@code AMQP_RECONNECT_INTERVAL}, for ever, and logs
 * each refusal as an ERROR beside the AMQP client's WARN, while its readiness, which looks at the connection only,
 * stays up: a pod that consumes nothing and says so every second. Here the refusal is one ERROR naming the broker's
 * reason and what to do, a reminder every minute, one line when the broker accepts the link again; readiness is down
 * meanwhile ({@link ConsumptionHealth}), the gauge {@code points_inbox_broker_link_refused{channel}} is 1 (the
 * connection is there, so {@code points_inbox_broker_connected} stays 1), and the console drops the connector's own
 * lines ({@link BrokerDisconnectLogFilter}). Nothing here changes what is consumed or retried.
 */
@ApplicationScoped
public class RefusedReceiverLink {

    /** "Unable to retrieve messages from AMQP, retrying...": the connector's line for a failed receiver stream. */
    static final String RECEIVER_RETRYING = "SRMSG16205";
    /** How the AMQP client words the error a broker sent with its detach (proton-j's {@code ErrorCondition}). */
    private static final Pattern BROKER_ERROR = Pattern.compile(
            "^Error\\{condition=([^,]*), description='(.*)', info=.*}$", Pattern.DOTALL);
    /** Artemis's words for an address that has no ANYCAST routing, to a link that asked for a queue. */
    private static final String NO_QUEUE_SUPPORT = "is not configured for queue support";
    private static final Duration REMINDER = Duration.ofMinutes(1);

    private static final Logger LOG = Logger.getLogger(RefusedReceiverLink.class);

    private final ConsumptionSwitch consumption;
    private final String address;
    private final String broker;
    private final long reconnectInterval;

    private final Handler hook = new LogLineHook(record -> {
        String message = record.getMessage();
        if (message == null) {
            return;
        }
        if (message.contains(RECEIVER_RETRYING)) {
            brokerError(record.getThrown()).ifPresent(this::refused);
        } else if (message.contains(OversizedDeliveries.RECEIVER_LISTENING)) {
            attached();
        }
    });

    private Instant since;
    private Instant remindedAt;
    private long refusals;
    private volatile String reason;

    RefusedReceiverLink(ConsumptionSwitch consumption, PointsConfig points, Config config) {
        this.consumption = consumption;
        this.address = points.address();
        this.broker = BrokerConnectionWatch.broker(config);
        this.reconnectInterval = BrokerConnectionWatch.reconnectInterval(config);
    }

    /** Before the messaging channels start (they do on this event too), so that the first refusal is seen. */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, MeterRegistry registry) {
        java.util.logging.Logger.getLogger(OversizedDeliveries.CONNECTOR_LOGGER).addHandler(hook);
        Gauge.builder("points.inbox.broker.link.refused", this, link -> link.reason == null ? 0 : 1)
                .description("1 while the broker refuses the inbound channel's receiver link on a connection it keeps"
                        + " open (nothing is consumed), 0 otherwise")
                .tag("channel", PointsGrantedConsumer.CHANNEL).strongReference(true).register(registry);
    }

    @PreDestroy
    void close() {
        java.util.logging.Logger.getLogger(OversizedDeliveries.CONNECTOR_LOGGER).removeHandler(hook);
        BrokerDisconnectLogFilter.linkRefused(false);
    }

    /** The broker's reason while it refuses the receiver link; empty once it accepts it (or never refused it). */
    public Optional<String> refusal() {
        return Optional.ofNullable(reason);
    }

    /**
     * The error a broker sent when it refused or closed the link ("amqp:illegal-state: Address ... is not
     * configured for queue support"), or empty for any other failure: a lost connection is the connection's, and
     * {@link BrokerConnectionWatch} says it.
     */
    static Optional<String> brokerError(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            Matcher error = t.getMessage() == null ? null : BROKER_ERROR.matcher(t.getMessage());
            if (error != null && error.matches()) {
                String condition = error.group(1);
                String description = error.group(2);
                return Optional.of("null".equals(description) ? condition : condition + ": " + description);
            }
        }
        return Optional.empty();
    }

    private synchronized void refused(String error) {
        if (consumption.stopping()) {
            return;
        }
        Instant now = Instant.now();
        refusals++;
        if (since == null) {
            since = now;
            remindedAt = now;
            reason = "the broker refuses the receiver link on " + address + ": " + error;
            BrokerDisconnectLogFilter.linkRefused(true);
            LOG.errorf("The AMQP broker at %s refuses this service's receiver link on %s (%s). Nothing is consumed"
                    + " and readiness is down until the broker's configuration changes; the connector attaches again"
                    + " every %d s. %s", broker, address, error, reconnectInterval, whatToDo(error));
        } else if (Duration.between(remindedAt, now).compareTo(REMINDER) >= 0) {
            remindedAt = now;
            LOG.errorf("The AMQP broker at %s still refuses the receiver link on %s, %d times in %d s (%s)", broker,
                    address, refusals, Duration.between(since, now).toSeconds(), error);
        }
    }

    private synchronized void attached() {
        if (since != null) {
            LOG.infof("The AMQP broker at %s accepts the receiver link on %s, after %d s and %d refusals: consuming",
                    broker, address, Duration.between(since, Instant.now()).toSeconds(), refusals);
        }
        since = null;
        remindedAt = null;
        refusals = 0;
        reason = null;
        BrokerDisconnectLogFilter.linkRefused(false);
    }

    private String whatToDo(String error) {
        if (error.contains(NO_QUEUE_SUPPORT)) {
            return "The address exists as MULTICAST only: on Artemis, a sender created it before this service first"
                    + " attached, without asking for a queue, and what was sent to it was dropped (an address with no"
                    + " queue keeps nothing). Give it ANYCAST routing and a queue of its name (artemis address update"
                    + " --name " + address + " --anycast --multicast; artemis queue create --name " + address
                    + " --address " + address + " --anycast --durable --preserve-on-no-consumers), and declare the"
                    + " address before senders use it (docs/operations.md#brokers)";
        }
        if (error.startsWith("amqp:unauthorized-access")) {
            return "Give the broker user of this service (AMQP_USERNAME) the permission to consume from " + address
                    + " (docs/operations.md#brokers)";
        }
        return "Check the address and its queue on the broker (docs/operations.md#brokers)";
    }
}
