package io.pointsinbox.inbox;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;
import io.pointsinbox.support.Workload;

/**
 * Two logical consumers of one stream, deployed as the operations guide describes: the stream is a MULTICAST address
 * with one durable queue per consumer, and each consumer's packaged application reads its own queue by its fully
 * qualified name ({@code POINTS_ADDRESS=points-fanout::fanout-ledger}) under its own consumer name. Several senders
 * send the same messages at once to the address, with repeats: each consumer applies every message once, to its own
 * balances, and the two never see each other's inbox rows as duplicates.
 */
class FanOutIT {

    /** Each consumer name with the queue it reads. */
    private static final Map<String, String> CONSUMERS = Map.of("points-ledger", "fanout-ledger", "points-audit",
            "fanout-audit");
    private static final int SENDERS = 4;

    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("fan-out-it");

    @BeforeAll
    static void resetLedger() throws Exception {
        Ledger.reset();
    }

    @Test
    void eachConsumerAppliesEveryMessageOnceFromItsOwnQueue() throws Exception {
        Workload workload = new Workload(400, 0.25, 70_000, 25, 11);
        Map<String, AppProcess> apps = new java.util.LinkedHashMap<>();
        try {
            // One after the other: the first start migrates the schema.
            for (var consumer : CONSUMERS.entrySet()) {
                Map<String, String> env = SERVICES.environment();
                env.put("POINTS_CONSUMER", consumer.getKey());
                env.put("POINTS_ADDRESS", ArtemisTestResource.FANOUT + "::" + consumer.getValue());
                apps.put(consumer.getKey(), AppProcess.startReady(env, SERVICES.log(consumer.getKey() + ".log")));
            }
            sendFromSeveralSendersAtOnce(workload.messages());
            await("both queues drained").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250))
                    .until(() -> CONSUMERS.values().stream().allMatch(queue -> ArtemisTestResource.pending(queue) == 0)
                            && CONSUMERS.keySet().stream().allMatch(c -> Ledger.inboxRows(c) >= workload.unique()));
            for (var each : apps.entrySet()) {
                String consumer = each.getKey();
                AppProcess app = each.getValue();
                assertEquals(workload.unique(), app.metric("points_inbox_messages_total",
                        "consumer=\"" + consumer + "\"", "outcome=\"processed\""), consumer + ": processed");
                assertEquals((double) SENDERS * workload.messages().size() - workload.unique(),
                        app.metric("points_inbox_messages_total", "consumer=\"" + consumer + "\"",
                                "outcome=\"duplicate\""), consumer + ": every other copy a duplicate");
            }
        } finally {
            for (AppProcess app : apps.values()) {
                app.terminate(Duration.ofSeconds(30));
            }
        }
        for (String consumer : CONSUMERS.keySet()) {
            workload.expectedBalances().forEach((user, expected) -> assertEquals(expected,
                    Ledger.balance(consumer, user), consumer + ": balance of user " + user));
            assertEquals(workload.unique(), Ledger.inboxRows(consumer), consumer + ": one inbox row per message id");
        }
        assertEquals(2L * workload.unique(), Ledger.totalRows("point_grant"), "one ledger entry per id and consumer");
        assertEquals(0, ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount(),
                "nothing dead-lettered");
    }

    /** Every sender sends every message, each in its own order, all at once: copies of one id race each other. */
    private static void sendFromSeveralSendersAtOnce(List<String> messages) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(SENDERS);
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++) {
                List<String> order = new ArrayList<>(messages);
                Collections.shuffle(order, new Random(s));
                sent.add(pool.submit(() -> {
                    try (AmqpTestClient sender = new AmqpTestClient(ArtemisTestResource.FANOUT)) {
                        sender.sendAll(order);
                    }
                }));
            }
            for (Future<?> f : sent) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
