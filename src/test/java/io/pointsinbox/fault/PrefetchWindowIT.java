package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import org.apache.activemq.artemis.core.server.Queue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.PackagedAppServices;

/**
 * How many deliveries one instance holds while its workers are behind, as docs/operations.md#the-prefetch-window
 * states it: the link credit the service sets ({@code POINTS_LINK_CREDIT}, 256 by default, where the connector built
 * into Quarkus 3.33 would grant 1,000), plus what the connector's internal queues take on top. Every one of them is a
 * message held in memory and, if the process dies, one delivery attempt spent. A change to this window fails here,
 * and the documentation (and the memory guidance that follows from it) has to change with it.
 */
class PrefetchWindowIT {

    private static final int CREDITS = 256;
    private static final int BACKLOG = 2_000;

    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().deadLetteringAfter(10)
            .logsIn("prefetch-window-it");

    @Test
    void aStalledInstanceHoldsItsLinkCreditAndAFewHundredMore() throws Exception {
        long userId = 8_800_000L + System.nanoTime() % 100_000;
        List<String> grants = IntStream.range(0, BACKLOG).mapToObj(i -> grant(UUID.randomUUID(), userId, 1)).toList();
        ArtemisTestResource.preload(grants);
        Map<String, String> env = SERVICES.environment();
        // Every worker sleeps between its commit and its acknowledgement: the workers stall and the window fills.
        env.put("QUARKUS_PROFILE", "chaos");
        env.put("CHAOS_COMMIT_ACK_DELAY", "20s");
        env.put("POINTS_CONSUMER", "prefetch-window");
        AppProcess app = AppProcess.start(env, SERVICES.log("app.log"));
        try {
            Queue queue = ArtemisTestResource.queue(ArtemisTestResource.ADDRESS);
            await("the window filled").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> queue.getDeliveringCount() >= CREDITS);
            long previous = -1;
            long delivering = queue.getDeliveringCount();
            // Settled when it stops growing; well within the workers' 20 s sleep, so nothing is acknowledged yet.
            while (delivering != previous) {
                Thread.sleep(1_000);
                previous = delivering;
                delivering = queue.getDeliveringCount();
            }
            System.out.printf("PREFETCH-WINDOW | %d deliveries held by a stalled instance, %d left on the broker%n",
                    delivering, queue.getMessageCount() - delivering);
            assertTrue(delivering >= CREDITS, "at least the link credit: " + delivering);
            // The credit, Mutiny's emitOn queue (256), the merge in front of the workers (128) and the workers.
            assertTrue(delivering <= CREDITS + 256 + 128 + 16, "no unbounded buffering: " + delivering);
            assertTrue(queue.getMessageCount() - delivering > 0, "the rest of the backlog stayed on the broker");
        } finally {
            app.kill();
        }
    }
}
