package io.pointsinbox.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.api.core.management.QueueControl;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.CoreAddressConfiguration;
import org.apache.activemq.artemis.core.server.MessageReference;
import org.apache.activemq.artemis.core.server.Queue;
import org.apache.activemq.artemis.core.server.ServerConsumer;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressFullMessagePolicy;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.apache.activemq.artemis.utils.collections.LinkedListIterator;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * A real ActiveMQ Artemis broker inside the test JVM, speaking AMQP 1.0 on a free loopback port, with a dead-letter
 * address and a bounded number of delivery attempts. It hands host and port to Quarkus, so the same resource serves
 * the packaged application in integration tests.
 */
public class ArtemisTestResource implements QuarkusTestResourceLifecycleManager {

    public static final String ADDRESS = EmbeddedArtemis.ADDRESS;
    public static final String DEAD_LETTER = EmbeddedArtemis.DEAD_LETTER;
    public static final int MAX_DELIVERY_ATTEMPTS = 3;
    /** An address that refuses every message once it holds one (FAIL policy): a dead-letter address that is full. */
    public static final String FULL = "points-full";
    /**
     * A MULTICAST address with one durable queue per logical consumer, {@link #FANOUT_QUEUES}: every message sent to it
     * is copied to each queue, and a consumer reads its own as {@code points-fanout::<queue>}.
     */
    public static final String FANOUT = "points-fanout";
    public static final List<String> FANOUT_QUEUES = List.of("fanout-ledger", "fanout-audit");

    /** An address no one consumes from, where {@link #preload} stages a backlog. */
    /**
     * An address that exists as MULTICAST only, with no queue: what a sender that asks for no queue leaves on a fresh
     * Artemis. The broker refuses a link that asks to consume it as a queue.
     */
    public static final String MULTICAST_ONLY = "points-multicast-only";
    /** An address the broker neither has nor creates: a link to it is refused ({@code amqp:not-found}). */
    public static final String NOT_CREATED = "points-not-created";
    private static final String STAGING = "points-staging";

    private static volatile EmbeddedActiveMQ broker;
    private static volatile int port;
    private static volatile int tlsPort;
    private static volatile int tlsOtherHostPort;
    private static volatile Path dataDir;
    private static volatile int maxDeliveryAttempts;

    private final int attempts;

    public ArtemisTestResource() {
        this(MAX_DELIVERY_ATTEMPTS);
    }

    /** A broker that dead-letters a message after a given number of delivery attempts. */
    public ArtemisTestResource(int maxDeliveryAttempts) {
        this.attempts = maxDeliveryAttempts;
    }

    @Override
    public Map<String, String> start() {
        try {
            int[] ports = freePorts(3);
            port = ports[0];
            tlsPort = ports[1];
            tlsOtherHostPort = ports[2];
            dataDir = Files.createTempDirectory("artemis-test");
            maxDeliveryAttempts = attempts;
            broker = startBroker();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the embedded Artemis broker", e);
        }
        return Map.of("amqp-host", "127.0.0.1", "amqp-port", String.valueOf(port));
    }

    @Override
    public void stop() {
        try {
            if (broker != null) {
                broker.stop();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops the broker, keeps it down for a while, and starts it again on the same port and journal. */
    public static void restart(java.time.Duration down) throws Exception {
        takeDown();
        Thread.sleep(down.toMillis());
        bringBack();
    }

    /** Stops the broker; {@link #bringBack} starts it again on the same port and journal. */
    public static void takeDown() throws Exception {
        broker.stop();
    }

    public static void bringBack() throws Exception {
        broker = startBroker();
    }

    /**
     * Closes the broker's consumers of a queue, as an operator would from the console, leaving their connections
     * open; returns how many it closed.
     */
    public static int closeConsumers(String name) throws Exception {
        int closed = 0;
        for (Object consumer : queue(name).getConsumers()) {
            if (consumer instanceof ServerConsumer server && broker.getActiveMQServer().getActiveMQServerControl()
                    .closeConsumerWithID(server.getSessionID(), String.valueOf(server.sequentialID()))) {
                closed++;
            }
        }
        return closed;
    }

    /**
     * What an operator does to an address that exists as MULTICAST only: adds ANYCAST routing and a durable queue of
     * its name ({@code artemis address update --anycast --multicast}, then {@code artemis queue create --anycast}).
     */
    public static void addAnycastQueue(String address) throws Exception {
        var server = broker.getActiveMQServer();
        server.getActiveMQServerControl().updateAddress(address, "ANYCAST,MULTICAST");
        server.createQueue(QueueConfiguration.of(address).setAddress(address).setRoutingType(RoutingType.ANYCAST)
                .setDurable(true));
    }

    /** The AMQP connections the broker holds open, from every client. */
    public static long amqpConnections() {
        return broker.getActiveMQServer().getRemotingService().getConnections().stream()
                .filter(connection -> "AMQP".equalsIgnoreCase(connection.getProtocolName())).count();
    }

    /** The broker on {@link #port} and {@link #dataDir}, with {@link #FULL}, which the local broker does not have. */
    private static EmbeddedActiveMQ startBroker() throws Exception {
        Configuration configuration = EmbeddedArtemis.configuration(port, dataDir, maxDeliveryAttempts)
                // AMQP over TLS, with a certificate for localhost and 127.0.0.1 signed by src/test/resources/tls/ca.pem,
                // and with one the same CA signed for another host name.
                .addAcceptorConfiguration("amqps", tlsAcceptor(tlsPort, "broker.p12"))
                .addAcceptorConfiguration("amqps-other-host", tlsAcceptor(tlsOtherHostPort, "broker-other-host.p12"))
                .addAddressSetting(FULL, new AddressSettings()
                        .setDeadLetterAddress(SimpleString.of(DEAD_LETTER))
                        .setMaxSizeBytes(1)
                        .setAddressFullMessagePolicy(AddressFullMessagePolicy.FAIL))
                .addAddressSetting(NOT_CREATED, new AddressSettings().setAutoCreateAddresses(false)
                        .setAutoCreateQueues(false))
                .addAddressConfiguration(EmbeddedArtemis.anycast(FULL))
                .addAddressConfiguration(EmbeddedArtemis.anycast(STAGING))
                .addAddressConfiguration(fanout())
                .addAddressConfiguration(new CoreAddressConfiguration().setName(MULTICAST_ONLY)
                        .addRoutingType(RoutingType.MULTICAST));
        return EmbeddedArtemis.start(configuration);
    }

    private static String tlsAcceptor(int port, String keyStore) {
        return "tcp://127.0.0.1:" + port + "?protocols=AMQP;sslEnabled=true;keyStorePath="
                + Path.of("src/test/resources/tls", keyStore).toAbsolutePath() + ";keyStorePassword=changeit";
    }

    private static CoreAddressConfiguration fanout() {
        CoreAddressConfiguration address = new CoreAddressConfiguration().setName(FANOUT)
                .addRoutingType(RoutingType.MULTICAST);
        FANOUT_QUEUES.forEach(queue -> address.addQueueConfiguration(QueueConfiguration.of(queue).setAddress(FANOUT)
                .setRoutingType(RoutingType.MULTICAST).setDurable(true)));
        return address;
    }

    /**
     * Puts a backlog on the inbound queue at once, without touching the consumer: the messages are sent to a staging
     * queue no one reads, then moved in one operation of the broker.
     */
    public static void preload(List<String> bodies) throws Exception {
        try (AmqpTestClient sender = new AmqpTestClient(STAGING)) {
            sender.sendAll(bodies);
        }
        QueueControl staging = broker.getActiveMQServer().getManagementService().getQueueControl(STAGING);
        int moved = staging.moveMessages(null, ADDRESS);
        if (moved != bodies.size()) {
            throw new IllegalStateException("moved " + moved + " of " + bodies.size() + " staged messages");
        }
    }

    /** The port of the broker's AMQP-over-TLS acceptor. */
    public static int tlsPort() {
        return tlsPort;
    }

    /** The port of an AMQP-over-TLS acceptor whose certificate names another host, {@code other.example}. */
    public static int tlsOtherHostPort() {
        return tlsOtherHostPort;
    }

    public static int port() {
        return port;
    }

    public static Queue queue(String name) {
        Queue queue = broker.getActiveMQServer().locateQueue(SimpleString.of(name));
        if (queue == null) {
            throw new IllegalStateException("no queue " + name + " on the test broker");
        }
        return queue;
    }

    /** The names of the queues bound to an address, in no particular order (none if the address does not exist). */
    public static List<String> queuesOf(String address) throws Exception {
        return broker.getActiveMQServer().bindingQuery(SimpleString.of(address)).getQueueNames().stream()
                .map(SimpleString::toString).toList();
    }

    /** Messages waiting plus messages delivered but not yet settled. */
    public static long pending(String name) {
        Queue queue = queue(name);
        return queue.getMessageCount() + queue.getDeliveringCount();
    }

    /** A string property of every message in a queue, in order (application properties of AMQP messages too). */
    public static List<String> browse(String name, String property) {
        List<String> values = new ArrayList<>();
        try (LinkedListIterator<MessageReference> it = queue(name).browserIterator()) {
            while (it.hasNext()) {
                Object value = it.next().getMessage().getObjectProperty(SimpleString.of(property));
                values.add(value == null ? null : value.toString());
            }
        }
        return values;
    }

    /** What a queue holds, for failure messages: depth, unsettled deliveries and the highest delivery count. */
    public static String describe(String name) {
        Queue queue = queue(name);
        return name + ": " + queue.getMessageCount() + " messages, " + queue.getDeliveringCount()
                + " delivering, " + queue.getConsumerCount() + " consumers, highest delivery count "
                + highestDeliveryCount(name);
    }

    /** The first few messages of a queue: size as stored, delivery count, and a scheduled redelivery if any. */
    public static String waiting(String name, int limit) {
        StringBuilder found = new StringBuilder();
        try (LinkedListIterator<MessageReference> it = queue(name).browserIterator()) {
            for (int i = 0; i < limit && it.hasNext(); i++) {
                MessageReference ref = it.next();
                found.append(i == 0 ? "" : ", ").append(ref.getMessage().getPersistentSize()).append(" B, delivered ")
                        .append(ref.getDeliveryCount()).append(ref.getScheduledDeliveryTime() > 0 ? ", scheduled" : "");
            }
        } catch (Exception e) {
            found.append(e);
        }
        return "[" + found + "]";
    }

    /** The highest delivery count among the messages waiting in a queue (0: none was ever handed back counted). */
    public static int highestDeliveryCount(String name) {
        int highest = 0;
        try (LinkedListIterator<MessageReference> it = queue(name).browserIterator()) {
            while (it.hasNext()) {
                highest = Math.max(highest, it.next().getDeliveryCount());
            }
        }
        return highest;
    }

    public static void purge(String name) throws Exception {
        queue(name).deleteAllReferences();
    }

    /** Distinct free ports: each is held open until all are chosen, so the system cannot hand one out twice. */
    private static int[] freePorts(int count) throws IOException {
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                if (socket != null) {
                    socket.close();
                }
            }
        }
    }
}
