package io.pointsinbox.support;

import java.nio.file.Path;

import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.CoreAddressConfiguration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;

/**
 * The broker the service expects, as code: AMQP on loopback (the same port speaks CORE, for JMS senders), a durable
 * inbound queue, a dead-letter address and a bounded number of delivery attempts. Used by the tests and by
 * {@link LocalBroker} for local runs.
 */
public final class EmbeddedArtemis {

    public static final String ADDRESS = "points-granted";
    public static final String DEAD_LETTER = "DLQ";

    private EmbeddedArtemis() {
    }

    public static EmbeddedActiveMQ start(int port, Path dataDir, int maxDeliveryAttempts) throws Exception {
        return start(configuration(port, dataDir, maxDeliveryAttempts));
    }

    public static EmbeddedActiveMQ start(Configuration configuration) throws Exception {
        EmbeddedActiveMQ broker = new EmbeddedActiveMQ().setConfiguration(configuration);
        broker.start();
        return broker;
    }

    /** The broker's configuration, for a caller that adds to it before {@link #start(Configuration)}. */
    public static Configuration configuration(int port, Path dataDir, int maxDeliveryAttempts) throws Exception {
        AddressSettings everyAddress = new AddressSettings()
                .setDeadLetterAddress(SimpleString.of(DEAD_LETTER))
                .setMaxDeliveryAttempts(maxDeliveryAttempts)
                .setRedeliveryDelay(0);
        return new ConfigurationImpl()
                .setName("points-inbox-broker")
                .setPersistenceEnabled(true)
                .setJournalDirectory(dataDir.resolve("journal").toString())
                .setBindingsDirectory(dataDir.resolve("bindings").toString())
                .setLargeMessagesDirectory(dataDir.resolve("large").toString())
                .setPagingDirectory(dataDir.resolve("paging").toString())
                // Why: the tests need persistent messages, not fsync-durable ones; fsync would only slow them down.
                .setJournalSyncTransactional(false)
                .setJournalSyncNonTransactional(false)
                .setSecurityEnabled(false)
                .addAcceptorConfiguration("amqp", "tcp://127.0.0.1:" + port + "?protocols=AMQP,CORE")
                .addAddressSetting("#", everyAddress)
                .addAddressConfiguration(anycast(ADDRESS))
                .addAddressConfiguration(anycast(DEAD_LETTER));
    }

    static CoreAddressConfiguration anycast(String name) {
        return new CoreAddressConfiguration()
                .setName(name)
                .addRoutingType(RoutingType.ANYCAST)
                .addQueueConfiguration(QueueConfiguration.of(name).setAddress(name).setRoutingType(RoutingType.ANYCAST)
                        .setDurable(true));
    }
}
