package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;
import io.pointsinbox.support.TcpProxy;

/**
 * What the packaged service writes to its console when it loses the broker and recovers by itself: a broker restart,
 * then a broker that falls silent past the idle timeout, then a connection reset (a broker killed), then a graceful
 * stop. Each loss is one WARN line naming its cause, with no stack trace and no ERROR anywhere, and a message sent
 * after each recovery is applied.
 */
class BrokerOutageLogIT {

    private static final String CONSUMER = "points-ledger";
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2);

    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("broker-outage-it");

    @Test
    void aRestartedOrSilentBrokerIsOneWarningLineEachAndConsumptionGoesOn() throws Exception {
        long userId = 7_900_000L + System.nanoTime() % 100_000;
        Path log = SERVICES.log("service.log");
        try (TcpProxy broker = new TcpProxy("127.0.0.1", ArtemisTestResource::port)) {
            Map<String, String> env = SERVICES.environment();
            env.put("AMQP_PORT", String.valueOf(broker.port()));
            env.put("POINTS_BROKER_IDLE_TIMEOUT", IDLE_TIMEOUT.toSeconds() + "s");
            AppProcess app = AppProcess.startReady(env, log);
            try {
                // Ready means connected; the receiver attaches just after. A connection lost before that is
                // StuckChannelTest's case, not this one.
                await("the receiver attached").atMost(Duration.ofSeconds(30))
                        .until(() -> Files.readString(log).contains("SRMSG16203"));
                ArtemisTestResource.restart(Duration.ofSeconds(2));
                sendAndAwaitApplied(userId, 1);
                String afterRestart = Files.readString(log);
                assertTrue(afterRestart.contains(
                        "SRMSG16214: AMQP Connection failure: Connection disconnected; the connector reconnects"),
                        "the restart is reported, with its cause:\n" + afterRestart);

                int connections = broker.acceptedConnections();
                broker.silenceOpenConnections();
                await("a new connection after the idle timeout").atMost(IDLE_TIMEOUT.multipliedBy(10))
                        .until(() -> broker.acceptedConnections() > connections && app.ready());
                sendAndAwaitApplied(userId, 2);

                int beforeReset = broker.acceptedConnections();
                broker.resetOpenConnections(); // a broker killed: its host resets the connection
                await("a new connection after the reset").atMost(Duration.ofSeconds(30))
                        .until(() -> broker.acceptedConnections() > beforeReset && app.ready());
                sendAndAwaitApplied(userId, 3);
            } finally {
                app.terminate(Duration.ofSeconds(30));
            }
        }
        List<String> lines = Files.readAllLines(log);
        assertTrue(lines.stream().anyMatch(line -> line.contains(" WARN ") && line.contains(
                "Connection disconnected - local-idle-timeout expired; the connector reconnects")),
                "the silent broker is reported, with its cause:\n" + String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(line -> line.contains(" WARN ") && line.contains(
                "A connection was reset by its peer (Connection reset): the AMQP broker stopped without closing it")),
                "the reset connection is reported:\n" + String.join("\n", lines));
        assertEquals(List.of(), lines.stream().filter(line -> line.contains(" ERROR ") || line.startsWith("\tat ")
                || line.contains("Exception:")).toList(), "no error and no stack trace");
        assertEquals(3, Ledger.grants(CONSUMER, userId), "each message applied once");
    }

    private static void sendAndAwaitApplied(long userId, int expected) {
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(UUID.randomUUID(), userId, 3));
        }
        await("grant " + expected + " applied").atMost(Duration.ofSeconds(60))
                .until(() -> Ledger.grants(CONSUMER, userId) == expected);
    }
}
