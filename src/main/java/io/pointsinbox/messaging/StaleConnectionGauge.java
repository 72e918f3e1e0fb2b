package io.pointsinbox.messaging;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Keeps the Vert.x AMQP client's {@code amqp_active_connections} gauge out of the registry. The client registers it
 * each time it connects, bound to that connection's client object; Micrometer keeps the first registration, so after
 * the first reconnect the gauge reads 0 while the service is connected (NaN once the first client has been
 * garbage-collected), and the second registration makes Micrometer log a warning. A gauge that lies is worse than
 * none: {@code points_inbox_broker_connected{channel}} ({@link BrokerConnectionWatch}) is the one to alert on, and
 * the client's {@code amqp_connections_seconds_active_count}, a timer that is not bound to one client, still counts
 * open connections.
 */
@Singleton
public class StaleConnectionGauge {

    static final String NAME = "amqp.active.connections";

    @Produces
    @Singleton
    MeterFilter denyStaleConnectionGauge() {
        return MeterFilter.deny(id -> NAME.equals(id.getName()));
    }
}
