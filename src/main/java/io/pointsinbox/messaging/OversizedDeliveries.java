package io.pointsinbox.messaging;

import java.util.List;
import java.util.logging.Handler;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.LinkError;
import org.apache.qpid.proton.engine.Delivery;
import org.jboss.logging.Logger;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.ops.InboxMetrics;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.vertx.amqp.AmqpReceiver;
import io.vertx.amqp.impl.AmqpConnectionImpl;
import io.vertx.core.net.NetSocket;
import io.vertx.proton.ProtonConnection;
import io.vertx.proton.ProtonReceiver;
import io.vertx.proton.impl.ProtonConnectionImpl;

/**
 * Bounds what the inbound link may bring into memory: the size of one message, and how many messages the broker may
 * send ahead. The AMQP library under the connector (vertx-proton) buffers a whole message before anything else sees
 * it, so without a size bound one message larger than the heap ends the process, again at every start, until the
 * broker gives up on it; and the connector grants the broker a fixed credit of 1,000 messages, on top of about 400 it
 * queues itself, so a backlog of messages near the size bound filled the recommended heap (one run in eight at 20 KiB).
 * The library can refuse a delivery once its bytes pass its link's {@code max-message-size}, and the connector's
 * receiver reads its first credit from a field when the connector subscribes, but the connector offers a setting for
 * neither. So this class sets {@code points.max-message-size} and {@code points.link-credit} on the inbound channel's
 * receiver as soon as its link is attached and before the connector grants any credit: on the connector's own line
 * "AMQP Receiver listening address" (SRMSG16203), which it logs on the connection's event loop between the two. A
 * check every few seconds sets the size bound too, should that line ever be missing (a log level raised on the
 * connector's category), and warns; by then the credit has been granted and stays at 1,000 on that link.
 * <p>
 * When a delivery passes the bound the library has dropped its bytes so far, so it holds at most the bound and one
 * frame. This class then settles the delivery as {@code rejected} ({@code amqp:link:message-size-exceeded}), which
 * makes Artemis move the message to its dead-letter address at once, counts it ({@code outcome="oversized"}), logs one
 * warning, stops reading the connection at once and closes it a moment later: the library stops reading the link for
 * good once a delivery passed its bound, and the connector opens a new connection and link only after a lost
 * connection. Should the close still overtake the rejection at the broker, the message comes back on the next
 * connection and is rejected again. Deliveries received on that connection and not yet acknowledged are redelivered on
 * the next one; those already applied are duplicates.
 * <p>
 * The connector's receivers are not reachable through any public API: {@link ConnectorLinks} reads them by
 * reflection. If a later version of the libraries moves their fields, nothing is bounded, and this class says so in
 * one warning at start-up; if it moves the credit's, the link keeps the connector's credit, with a warning too.
 */
@ApplicationScoped
public class OversizedDeliveries {

    /** The AMQP connector's logger. */
    static final String CONNECTOR_LOGGER = "io.smallrye.reactive.messaging.amqp";
    /** "AMQP Receiver listening address %s": the receiver is attached, no credit granted yet. */
    static final String RECEIVER_LISTENING = "SRMSG16203";

    private static final Logger LOG = Logger.getLogger(OversizedDeliveries.class);

    /** Time for the broker to read the rejection before the connection, no longer read, is closed. */
    private static final long CLOSE_DELAY_MS = 250;

    private final ConnectorLinks links;
    private final InboxMetrics metrics;
    private final PointsConfig config;
    /**
     * The largest message read, as encoded on the wire. A valid envelope's body is at most 16 KiB; a larger message
     * within this bound is still read and dead-lettered by the service itself, with its reason.
     */
    private final UnsignedLong bound;
    private final Handler trigger = new LogLineHook(record -> {
        String message = record.getMessage();
        if (message != null && message.contains(RECEIVER_LISTENING)) {
            boundReceivers();
        }
    });

    OversizedDeliveries(ConnectorLinks links, InboxMetrics metrics, PointsConfig config) {
        this.links = links;
        this.metrics = metrics;
        this.config = config;
        this.bound = UnsignedLong.valueOf(config.maxMessageSize());
    }

    /** Before the messaging channels start (they do on this event too), so that the first link is bounded. */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
        if (!links.reachable()) {
            LOG.warn("The AMQP libraries of this build do not have the fields this service reads to bound the size of a"
                    + " message: a message larger than the heap exhausts it (docs/operations.md#oversized-messages)");
            return;
        }
        if (!links.creditSettable()) {
            LOG.warnf("The AMQP libraries of this build do not have the fields this service sets to lower the link"
                    + " credit: POINTS_LINK_CREDIT=%d is not applied and the broker may send 1000 messages ahead"
                    + " (docs/operations.md#the-prefetch-window)", config.linkCredit());
        }
        java.util.logging.Logger.getLogger(CONNECTOR_LOGGER).addHandler(trigger);
    }

    @PreDestroy
    void close() {
        java.util.logging.Logger.getLogger(CONNECTOR_LOGGER).removeHandler(trigger);
    }

    /** The fallback: a link attached while the connector's line was not logged. */
    @Scheduled(every = "5s", delayed = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void check() {
        if (!links.reachable()) {
            return;
        }
        for (AmqpConnectionImpl connection : links.connections()) {
            if (connection.unwrap() instanceof ProtonConnectionImpl impl) {
                impl.getContext().runOnContext(v -> bound(connection, true));
            }
        }
    }

    /** How many of the connector's receivers carry the bound now (for tests). */
    int boundedReceivers() {
        return (int) links.links().stream().filter(link -> bound.equals(link.getMaxMessageSize())).count();
    }

    /** The credit the broker holds now on each open inbound receiver (for tests). */
    List<Integer> linkCredits() {
        return links.links().stream().filter(ProtonReceiver::isOpen).map(ProtonReceiver::getCredit).toList();
    }

    /** On the event loop of the connection whose receiver was just attached. */
    private void boundReceivers() {
        for (AmqpConnectionImpl connection : links.connections()) {
            bound(connection, false);
        }
    }

    private void bound(AmqpConnectionImpl connection, boolean late) {
        for (AmqpReceiver amqp : ConnectorLinks.receivers(connection)) {
            ProtonReceiver receiver = amqp.unwrap();
            if (receiver.getMaxMessageSize() == null && receiver.isOpen()) {
                receiver.setMaxMessageSize(bound);
                receiver.maxMessageSizeExceededHandler(this::exceeded);
                boolean credited = ConnectorLinks.setInitialCredit(amqp, config.linkCredit());
                if (late) {
                    LOG.warnf("The receiver on %s was bounded to %d bytes per message only by the periodic check%s:"
                            + " the AMQP connector's line %s was not logged (is its log category above INFO?)",
                            config.address(), bound.longValue(),
                            credited ? "" : ", and keeps the connector's link credit of 1000", RECEIVER_LISTENING);
                }
            }
        }
    }

    /** Called by the AMQP library on the connection's event loop; the library detaches the link after it. */
    private void exceeded(ProtonReceiver receiver) {
        Delivery delivery = ConnectorLinks.currentDelivery(receiver);
        if (delivery != null && !delivery.isSettled()) {
            Rejected rejected = new Rejected();
            rejected.setError(new ErrorCondition(LinkError.MESSAGE_SIZE_EXCEEDED,
                    "points-inbox reads messages of at most " + bound + " bytes"));
            delivery.disposition(rejected);
            delivery.settle();
        }
        metrics.rejected(config.consumer(), "oversized");
        LOG.warnf("A message on %s is larger than %d bytes, the most this service reads: rejected unread (the broker"
                + " moves it to its dead-letter address), and the connection is opened again; fix the sender"
                + " (POINTS_MAX_MESSAGE_SIZE, docs/operations.md#oversized-messages)", config.address(),
                bound.longValue());
        // The library reads nothing more from this link: the broker's next transfers (up to the link's credit, of any
        // size) would pile up unread in memory. So the connection stops reading at once, and closes a moment later:
        // closed at once, with the broker's transfers unread, it is reset, and a broker that had not yet read the
        // rejection loses it with the connection and offers the message again.
        ProtonConnection connection = receiver.getSession().getConnection();
        NetSocket socket = ConnectorLinks.socket(connection);
        if (socket == null || !(connection instanceof ProtonConnectionImpl impl)) {
            ConnectorLinks.disconnect(connection);
            return;
        }
        socket.pause();
        impl.getContext().owner().setTimer(CLOSE_DELAY_MS, timer -> {
            ConnectorLinks.disconnect(connection);
            // A paused socket holds back its close as well: without this the connector never hears of it.
            socket.resume();
        });
    }
}
