package io.pointsinbox.messaging;

import java.util.logging.Handler;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;

import io.pointsinbox.config.PointsConfig;
import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.ops.InboxMetrics;
import io.quarkus.runtime.StartupEvent;

/**
 * Deliveries whose AMQP encoding cannot be read: not a body this service refuses (those are dead-lettered with their
 * reason), but bytes that are not valid AMQP, such as an unknown type code or a section cut short. They never reach
 * the connector: the AMQP library (vertx-proton) fails to decode them and settles them itself as
 * {@code modified(delivery-failed, undeliverable-here)}, and says so only at debug level. The broker keeps such a
 * message, raises its delivery count and never offers it to this receiver again; its dead-letter address takes it
 * once receivers (other replicas, later connections) have failed it {@code max-delivery-attempts} times. Without the
 * bytes nothing better can be done here, so each one is counted ({@code outcome="undecodable"}) and logged as a
 * warning that says where the message is.
 * <p>
 * The library's logger is set to debug with no parent handlers ({@code application.properties}), and this handler is
 * its only one: the decode failure becomes the warning, the library's other debug lines stay unseen, as by default.
 */
@ApplicationScoped
public class UndecodableDeliveries {

    /** The logger of the library's receiver, as configured in {@code application.properties}. */
    static final String LIBRARY_LOGGER = "io.vertx.proton.impl.ProtonReceiverImpl";
    /** How the library words a decode failure. */
    static final String DECODE_FAILURE = "Unable to decode message";

    private static final Logger LOG = Logger.getLogger(UndecodableDeliveries.class);

    private final InboxMetrics metrics;
    private final PointsConfig config;
    private final Handler handler = new LogLineHook(record -> {
        String message = record.getMessage();
        if (message != null && message.startsWith(DECODE_FAILURE)) {
            undecodable(record.getThrown());
        }
    });

    UndecodableDeliveries(InboxMetrics metrics, PointsConfig config) {
        this.metrics = metrics;
        this.config = config;
    }

    /** Before the messaging channels start (they do on this event too), so that a backlog's first delivery is seen. */
    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
        java.util.logging.Logger.getLogger(LIBRARY_LOGGER).addHandler(handler);
    }

    @PreDestroy
    void close() {
        java.util.logging.Logger.getLogger(LIBRARY_LOGGER).removeHandler(handler);
    }

    private void undecodable(Throwable cause) {
        metrics.rejected(config.consumer(), "undecodable");
        LOG.warnf("A delivery on %s is not valid AMQP and could not be read (%s): the AMQP library handed it back to"
                + " the broker unread, as modified (delivery-failed, undeliverable-here). The broker keeps it on the"
                + " queue without offering it to this receiver again, and moves it to its dead-letter address once"
                + " receivers have failed it max-delivery-attempts times; fix the sender"
                + " (docs/operations.md#undecodable-deliveries)",
                config.address(), cause == null ? "no cause given" : describe(cause));
    }

    private static String describe(Throwable cause) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (!text.isEmpty()) {
                text.append("; caused by ");
            }
            text.append(t.getClass().getSimpleName());
            if (t instanceof ClassCastException) {
                // The library casts each value it reads at the top level of a message to a section; the JVM's message
                // names two internal classes, and a JVM that has thrown it often from one place drops the message.
                text.append(": a value that is not a section, where AMQP puts one");
            } else if (t.getMessage() != null) {
                // This service's own wording is shown whole; the library's may quote what it read.
                text.append(": ").append(t instanceof BodySections.SectionOrderException ? t.getMessage()
                        : EnvelopeReader.abbreviate(t.getMessage()));
            }
        }
        return text.toString();
    }
}
