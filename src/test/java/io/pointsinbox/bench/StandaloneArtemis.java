package io.pointsinbox.bench;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.apache.activemq.artemis.api.core.client.ActiveMQClient;
import org.apache.activemq.artemis.api.core.client.ClientMessage;
import org.apache.activemq.artemis.api.core.client.ClientRequestor;
import org.apache.activemq.artemis.api.core.client.ClientSession;
import org.apache.activemq.artemis.api.core.client.ClientSessionFactory;
import org.apache.activemq.artemis.api.core.client.ServerLocator;
import org.apache.activemq.artemis.api.core.management.ManagementHelper;
import org.apache.activemq.artemis.api.core.management.ResourceNames;

/**
 * An ActiveMQ Artemis broker from the standalone distribution, in a process of its own, as a user runs one: an
 * instance made by {@code artemis create} with its defaults (journal, JVM options, delivery attempts), its AMQP
 * acceptor moved to 5673 and the core one to 61617 ({@code --port-offset 1}), the inbound queue and DLQ declared.
 * The benchmark reads queue depths through the broker's management address, over the core protocol.
 */
final class StandaloneArtemis implements AutoCloseable {

    static final int AMQP_PORT = 5673;
    private static final String CORE_URL = "tcp://127.0.0.1:61617";

    private final Path instance;
    private Process process;
    private ServerLocator locator;
    private ClientSessionFactory factory;
    private ClientSession session;
    private ClientRequestor requestor;

    private StandaloneArtemis(Path instance) {
        this.instance = instance;
    }

    /** Creates a fresh instance (no messages) from the distribution at {@code home} and starts it. */
    static StandaloneArtemis start(Path home, Path instance, Path log) throws Exception {
        for (int port : new int[] { AMQP_PORT, 61617 }) {
            try (Socket taken = new Socket("127.0.0.1", port)) {
                throw new IllegalStateException("port " + port + " is in use: stop what listens there (bin/run-local's"
                        + " broker, an earlier benchmark) so that the measured broker is the one started here");
            } catch (ConnectException free) {
                // Nothing listens there.
            }
        }
        deleteRecursively(instance);
        run(List.of(home.resolve("bin/artemis").toString(), "create", instance.toString(), "--silent", "--force",
                "--user", "points", "--password", "points", "--allow-anonymous", "--no-web", "--port-offset", "1",
                "--queues", "points-granted:anycast,DLQ:anycast", "--no-hornetq-acceptor", "--no-mqtt-acceptor",
                "--no-stomp-acceptor"), log);
        StandaloneArtemis broker = new StandaloneArtemis(instance);
        broker.process = new ProcessBuilder(instance.resolve("bin/artemis").toString(), "run")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                broker.connect();
                broker.depth("points-granted");
                return broker;
            } catch (Exception notYet) {
                broker.disconnect();
                if (!broker.process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the broker did not start; see " + log, notYet);
                }
                Thread.sleep(250);
            }
        }
    }

    /** The broker's JVM, for its CPU time (the launch script may run it as a child). */
    long pid() {
        return process.descendants().filter(p -> p.info().command().orElse("").endsWith("java"))
                .map(ProcessHandle::pid).findFirst().orElse(process.pid());
    }

    /** Messages on a queue, those delivered but not yet settled included. */
    long depth(String queue) throws Exception {
        ClientMessage request = session.createMessage(false);
        ManagementHelper.putAttribute(request, ResourceNames.QUEUE + queue, "messageCount");
        ClientMessage reply = requestor.request(request, 5_000);
        if (reply == null || !ManagementHelper.hasOperationSucceeded(reply)) {
            throw new IllegalStateException("the broker did not report the depth of " + queue);
        }
        return ((Number) ManagementHelper.getResult(reply)).longValue();
    }

    /** Deletes every message of a queue. */
    void purge(String queue) throws Exception {
        ClientMessage request = session.createMessage(false);
        ManagementHelper.putOperationInvocation(request, ResourceNames.QUEUE + queue, "removeAllMessages");
        ClientMessage reply = requestor.request(request, 30_000);
        if (reply == null || !ManagementHelper.hasOperationSucceeded(reply)) {
            throw new IllegalStateException("the broker did not purge " + queue);
        }
    }

    private void connect() throws Exception {
        locator = ActiveMQClient.createServerLocator(CORE_URL);
        factory = locator.createSessionFactory();
        session = factory.createSession("points", "points", false, true, true, false, 1);
        requestor = new ClientRequestor(session, "activemq.management");
        session.start();
    }

    private void disconnect() {
        try {
            if (requestor != null) {
                requestor.close();
            }
        } catch (Exception ignored) {
            // Closing what may never have opened.
        }
        if (factory != null) {
            factory.close();
        }
        if (locator != null) {
            locator.close();
        }
    }

    @Override
    public void close() throws Exception {
        disconnect();
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            process.waitFor();
        }
    }

    private static void run(List<String> command, Path log) throws Exception {
        Files.createDirectories(log.getParent());
        Process create = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (create.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed; see " + log);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }
}
