package io.pointsinbox.messaging;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Link;
import org.eclipse.microprofile.reactive.messaging.spi.Connector;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.reactive.messaging.amqp.AmqpConnector;
import io.smallrye.reactive.messaging.connector.InboundConnector;
import io.vertx.amqp.AmqpReceiver;
import io.vertx.amqp.impl.AmqpClientImpl;
import io.vertx.amqp.impl.AmqpConnectionImpl;
import io.vertx.amqp.impl.AmqpReceiverImpl;
import io.vertx.core.net.NetSocket;
import io.vertx.proton.ProtonConnection;
import io.vertx.proton.ProtonReceiver;
import io.vertx.proton.impl.ProtonConnectionImpl;

/**
 * The AMQP connector's connections and receiver links, which no public API reaches: the one place that reads (and,
 * for the link credit, writes) private fields of vertx-amqp-client and vertx-proton, all registered for native images
 * below. Used by {@link OversizedDeliveries} (size bound and link credit of the inbound receiver),
 * {@link BrokerConnectionWatch} (a connection left without its receiver link) and {@link StalledConsumption} (the
 * deliveries a receiver holds unsettled). Should a later version of those libraries move a field, the view it serves
 * is empty or the write is refused, never an exception; OversizedDeliveries says so in a warning at start-up.
 * The right fix is upstream: a connector setting for the initial credit (SmallRye Reactive Messaging 4.36 adds
 * {@code initial-credits}) and one for the message size, and a receiver that reports a detached link as a failure.
 */
@ApplicationScoped
@RegisterForReflection(targets = { AmqpClientImpl.class, AmqpConnectionImpl.class, AmqpReceiverImpl.class,
        ProtonConnectionImpl.class }, classNames = { "io.vertx.proton.impl.ProtonLinkImpl",
                "io.vertx.proton.impl.ProtonTransport" }, fields = true, methods = false)
public class ConnectorLinks {

    private static final Field CLIENT_CONNECTIONS = field(AmqpClientImpl.class, "connections");
    private static final Field CONNECTION_RECEIVERS = field(AmqpConnectionImpl.class, "receivers");
    private static final Field PROTON_LINK = field("io.vertx.proton.impl.ProtonLinkImpl", "link");
    /** The credit the receiver grants when the connector subscribes to it (1,000), and whether it has already. */
    private static final Field INITIAL_CREDIT = field(AmqpReceiverImpl.class, "initialCredit");
    private static final Field INITIAL_CREDIT_GIVEN = field(AmqpReceiverImpl.class, "initialCreditGiven");
    /** Where the socket is, to stop reading it. */
    private static final Field CONNECTION_TRANSPORT = field(ProtonConnectionImpl.class, "transport");
    private static final Field TRANSPORT_SOCKET = field("io.vertx.proton.impl.ProtonTransport", "socket");

    private final AmqpConnector connector;

    ConnectorLinks(@Connector(AmqpConnector.CONNECTOR_NAME) InboundConnector connector) {
        this.connector = (AmqpConnector) connector;
    }

    /** Whether this build's libraries have the fields that lead to the receivers and their current delivery. */
    boolean reachable() {
        return CLIENT_CONNECTIONS != null && CONNECTION_RECEIVERS != null && PROTON_LINK != null;
    }

    /** Whether this build's libraries have the fields that set a receiver's first credit. */
    boolean creditSettable() {
        return INITIAL_CREDIT != null && INITIAL_CREDIT_GIVEN != null;
    }

    /** The connector's connections, open or not (empty if not reachable). */
    List<AmqpConnectionImpl> connections() {
        List<AmqpConnectionImpl> found = new ArrayList<>();
        for (io.vertx.mutiny.amqp.AmqpClient client : connector.getClients()) {
            if (client.getDelegate() instanceof AmqpClientImpl impl
                    && read(CLIENT_CONNECTIONS, impl) instanceof List<?> connections) {
                for (Object connection : connections) {
                    if (connection instanceof AmqpConnectionImpl amqp) {
                        found.add(amqp);
                    }
                }
            }
        }
        return found;
    }

    /** The receivers attached on one connection, open or not. */
    static List<AmqpReceiver> receivers(AmqpConnectionImpl connection) {
        List<AmqpReceiver> found = new ArrayList<>();
        if (read(CONNECTION_RECEIVERS, connection) instanceof List<?> receivers) {
            for (Object receiver : receivers) {
                if (receiver instanceof AmqpReceiver amqp) {
                    found.add(amqp);
                }
            }
        }
        return found;
    }

    /** The links of the receivers on all the connector's connections, open or not. */
    List<ProtonReceiver> links() {
        List<ProtonReceiver> found = new ArrayList<>();
        for (AmqpConnectionImpl connection : connections()) {
            for (AmqpReceiver receiver : receivers(connection)) {
                found.add(receiver.unwrap());
            }
        }
        return found;
    }

    /**
     * The deliveries received on the open receiver links of the live connections and not settled yet, counted by the
     * AMQP engine of each link on its connection's event loop (the engine is not thread-safe); empty when the fields
     * are missing or an event loop did not answer within {@code wait}.
     */
    Optional<Integer> unsettledDeliveries(Duration wait) {
        if (!reachable()) {
            return Optional.empty();
        }
        int total = 0;
        for (AmqpConnectionImpl connection : connections()) {
            if (connection.isDisconnected() || !(connection.unwrap() instanceof ProtonConnectionImpl impl)) {
                continue;
            }
            CompletableFuture<Integer> counted = new CompletableFuture<>();
            impl.getContext().runOnContext(v -> {
                int unsettled = 0;
                for (AmqpReceiver receiver : receivers(connection)) {
                    ProtonReceiver link = receiver.unwrap();
                    if (link.isOpen() && read(PROTON_LINK, link) instanceof Link proton) {
                        unsettled += proton.getUnsettled();
                    }
                }
                counted.complete(unsettled);
            });
            try {
                total += counted.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } catch (ExecutionException | TimeoutException e) {
                return Optional.empty();
            }
        }
        return Optional.of(total);
    }

    /**
     * The live connections that have receivers attached but none open: the broker detached their links (or is about
     * to be disconnected after an oversized message).
     */
    List<AmqpConnectionImpl> linklessConnections() {
        List<AmqpConnectionImpl> found = new ArrayList<>();
        for (AmqpConnectionImpl connection : connections()) {
            List<AmqpReceiver> receivers = receivers(connection);
            if (!connection.isDisconnected() && !receivers.isEmpty()
                    && receivers.stream().noneMatch(receiver -> receiver.unwrap().isOpen())) {
                found.add(connection);
            }
        }
        return found;
    }

    /**
     * Closes a connection on its own event loop, after which the connector opens a new one, with a new link; whether
     * the close was scheduled.
     */
    static boolean disconnectLater(AmqpConnectionImpl connection) {
        if (connection.unwrap() instanceof ProtonConnectionImpl impl) {
            impl.getContext().runOnContext(v -> disconnect(impl));
            return true;
        }
        return false;
    }

    static void disconnect(ProtonConnection connection) {
        if (!connection.isDisconnected()) {
            connection.disconnect();
        }
    }

    /**
     * Sets the link credit the receiver grants first, unless it has granted it already; whether it was set. The
     * receiver reads both fields under its own lock, so they are read and written under it here too.
     */
    static boolean setInitialCredit(AmqpReceiver receiver, int credit) {
        if (INITIAL_CREDIT == null || INITIAL_CREDIT_GIVEN == null || !(receiver instanceof AmqpReceiverImpl impl)) {
            return false;
        }
        synchronized (impl) {
            try {
                if (INITIAL_CREDIT_GIVEN.getBoolean(impl)) {
                    return false;
                }
                INITIAL_CREDIT.setInt(impl, credit);
                return true;
            } catch (IllegalAccessException | RuntimeException e) {
                return false;
            }
        }
    }

    /** The delivery the link is receiving now, or null. */
    static Delivery currentDelivery(ProtonReceiver receiver) {
        return read(PROTON_LINK, receiver) instanceof Link proton ? proton.current() : null;
    }

    /** The connection's socket, or null if the fields are missing. */
    static NetSocket socket(ProtonConnection connection) {
        return read(TRANSPORT_SOCKET, read(CONNECTION_TRANSPORT, connection)) instanceof NetSocket socket ? socket
                : null;
    }

    /** The field's value, or null if the field is missing or not the owner's. */
    private static Object read(Field field, Object owner) {
        try {
            return field == null || owner == null ? null : field.get(owner);
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    /** The field, made accessible, or null if the owner has no such field. Also used by {@link BodySections}. */
    static Field field(Class<?> owner, String name) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    static Field field(String owner, String name) {
        try {
            return field(Class.forName(owner, false, ConnectorLinks.class.getClassLoader()), name);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
