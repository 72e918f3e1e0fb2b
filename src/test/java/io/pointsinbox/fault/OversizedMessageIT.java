package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;

/**
 * A message far larger than the heap of the recommended configuration, sent before the packaged service starts. The
 * service bounds the size of a message its AMQP library may buffer ({@code OversizedDeliveries}): the library drops
 * the message's bytes once they pass the bound, the service rejects it, the broker moves it to its dead-letter
 * address, and the messages behind it are applied once, all in the first run of the process. Without the bound the
 * message exhausted the heap at every start (the process exits on {@code OutOfMemoryError}, docker/jvm.options) and
 * reached the dead-letter address only after the broker had counted enough of those starts as delivery attempts,
 * which took from 4 to more than 15 starts.
 */
class OversizedMessageIT {

    private static final String CONSUMER = "points-ledger";
    private static final int OVERSIZED_MIB = 40;
    private static final int GRANTS = 50;
    private static final int AT_THE_BOUND = 1_500;
    private static final int OVER_THE_BOUND = 5;

    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("oversized-it");

    /** The memory options of docker/jvm.options that any JDK from 17 accepts (the AOT cache needs its own build). */
    private static List<String> memoryOptions() throws Exception {
        return Files.readAllLines(Path.of("docker", "jvm.options")).stream().map(String::strip)
                .filter(line -> line.startsWith("-Xm") || line.startsWith("-Xss") || line.equals("-XX:+UseSerialGC")
                        || line.startsWith("-XX:MaxDirectMemorySize") || line.contains("OutOfMemoryError"))
                .toList();
    }

    @Test
    void aMessageLargerThanTheHeapIsRejectedWhileItArrivesAndTheRestIsAppliedOnce() throws Exception {
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendJsonData(padded(OVERSIZED_MIB * 1024 * 1024), null);
        }
        long userId = 7_700_000L + System.nanoTime() % 100_000;
        List<String> grants = IntStream.range(0, GRANTS).mapToObj(i -> grant(UUID.randomUUID(), userId, 3)).toList();
        ArtemisTestResource.preload(grants);

        Path log = SERVICES.log("service.log");
        AppProcess app = startUntilDrained(log, userId, GRANTS, Duration.ofSeconds(90));
        try {
            await("ready").atMost(Duration.ofSeconds(30)).until(app::ready);

            assertEquals(GRANTS, Ledger.grants(CONSUMER, userId), "every grant behind it applied once");
            assertEquals(3L * GRANTS, Ledger.balance(CONSUMER, userId), "balance");
            assertEquals(1, ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount(),
                    "the oversized message, and only it, on the dead-letter address");
            assertEquals(0, ArtemisTestResource.pending(ArtemisTestResource.ADDRESS), "nothing left behind");
            String text = Files.readString(log);
            assertTrue(text.contains("A message on points-granted is larger than 20480 bytes, the most this service"
                    + " reads: rejected unread"), "the warning, in " + log);
            assertFalse(text.contains("OutOfMemoryError"), "no heap exhausted, in " + log);
            System.out.printf("OVERSIZED | %d MiB | rejected in the first run, then %d grants applied once%n",
                    OVERSIZED_MIB, GRANTS);
        } finally {
            app.terminate(Duration.ofSeconds(30));
        }
    }

    /**
     * A backlog the prefetch window holds whole: without a bound, 1,500 messages of 32 KiB (or 40 KiB) exhausted the
     * recommended heap before the service could refuse them; messages at the bound fit it (20 KiB by default) with the
     * link credit of POINTS_LINK_CREDIT (with the connector's 1,000 instead, one run in eight exhausted it). Here 1,500
     * messages just under the bound, refused by the service with their reason, and a few over it, rejected while they
     * arrive, each costing a new connection, with valid grants among them.
     */
    @Test
    void aBacklogOfLargeMessagesFitsTheRecommendedHeapAndEndsOnTheDeadLetterAddress() throws Exception {
        long userId = 7_800_000L + System.nanoTime() % 100_000;
        List<String> backlog = new ArrayList<>();
        for (int i = 0; i < AT_THE_BOUND; i++) {
            backlog.add(padded(19_900));
            if (i % (AT_THE_BOUND / GRANTS) == 0) {
                backlog.add(grant(UUID.randomUUID(), userId, 3));
            }
            if (i % (AT_THE_BOUND / OVER_THE_BOUND) == 0) {
                backlog.add(padded(40 * 1024));
            }
        }
        long grants = backlog.stream().filter(body -> body.length() < 1000).count();
        long refused = backlog.size() - grants;
        ArtemisTestResource.preload(backlog);

        Path log = SERVICES.log("backlog.log");
        AppProcess app = startUntilDrained(log, userId, grants, Duration.ofSeconds(240));
        try {
            assertEquals(grants, Ledger.grants(CONSUMER, userId), "every grant among them applied once");
            assertEquals(3L * grants, Ledger.balance(CONSUMER, userId), "balance");
            // At least once: a poison message whose copy was confirmed but whose acknowledgement went down with a
            // connection closed after an oversized one is dead-lettered again on its redelivery (docs/operations.md).
            long copies = ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount();
            List<Message> dead = AmqpTestClient.take(ArtemisTestResource.DEAD_LETTER,
                    (int) copies, Duration.ofSeconds(30));
            Set<String> expected = backlog.stream().filter(body -> body.length() >= 1000)
                    .map(OversizedMessageIT::messageId).collect(Collectors.toSet());
            Set<String> deadIds = dead.stream().map(OversizedMessageIT::messageId)
                    .collect(Collectors.toSet());
            assertEquals(refused, expected.size());
            assertEquals(expected, deadIds, "every large message on the dead-letter address, and nothing else ("
                    + copies + " copies)");
            String text = Files.readString(log);
            assertFalse(text.contains("OutOfMemoryError"), "no heap exhausted, in " + log);
            long rejectedUnread = text.lines().filter(line -> line.contains("larger than 20480 bytes")).count();
            // Once each, or again when the closing connection overtook the rejection at the broker: a delivery
            // attempt each time, so at most max-delivery-attempts.
            assertTrue(rejectedUnread >= OVER_THE_BOUND
                    && rejectedUnread <= (long) OVER_THE_BOUND * ArtemisTestResource.MAX_DELIVERY_ATTEMPTS,
                    rejectedUnread + " rejections of the " + OVER_THE_BOUND + " messages over the bound, in " + log);
            System.out.printf("OVERSIZED BACKLOG | %d at the bound, %d over it (%d rejections), %d grants, %d"
                    + " dead-letter copies | drained in one run%n", refused - OVER_THE_BOUND, OVER_THE_BOUND,
                    rejectedUnread, grants, copies);
        } finally {
            app.terminate(Duration.ofSeconds(30));
        }
    }

    private static String messageId(Message message) {
        Object body = ((AmqpValue) message.getBody()).getValue();
        return messageId(body.toString());
    }

    private static String messageId(String body) {
        Matcher id = Pattern.compile("\"messageId\":\"([^\"]+)\"").matcher(body);
        assertTrue(id.find(), body.substring(0, Math.min(80, body.length())));
        return id.group(1);
    }

    /** A valid grant padded with an unknown field to {@code size} characters: refused by the body limit. */
    private static String padded(int size) {
        String head = "{\"messageId\":\"" + UUID.randomUUID() + "\",\"type\":\"PointsGranted.v1\",\"payload\":"
                + "{\"userId\":1,\"amount\":1},\"padding\":\"";
        return head + "x".repeat(size - head.length() - 2) + "\"}";
    }

    /**
     * Starts the packaged service with the recommended memory options and returns it once the queue is empty and the
     * user's grants are applied; fails if it exits first or does not get there in time.
     */
    private static AppProcess startUntilDrained(Path log, long userId, long grants, Duration atMost) throws Exception {
        List<String> options = memoryOptions();
        assertTrue(options.contains("-Xmx48m"), "the recommended heap: " + options);
        AppProcess app = AppProcess.start(ProcessHandle.current().info().command().orElse("java"), options,
                SERVICES.environment(), log);
        long deadline = System.nanoTime() + atMost.toNanos();
        while (app.alive() && !drained(userId, grants) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        OptionalInt exit = app.awaitExit(Duration.ofMillis(500));
        // As the service left it, before it is stopped (which hands back what it holds).
        String queue = ArtemisTestResource.describe(ArtemisTestResource.ADDRESS) + ", first waiting "
                + ArtemisTestResource.waiting(ArtemisTestResource.ADDRESS, 3);
        if (exit.isPresent() || !drained(userId, grants)) {
            app.terminate(Duration.ofSeconds(30));
        }
        assertTrue(exit.isEmpty(), "the service exited (" + exit + ") instead of refusing what it cannot hold; "
                + queue + "; " + log);
        assertTrue(drained(userId, grants), "not drained in " + atMost.toSeconds() + " s: "
                + Ledger.grants(CONSUMER, userId) + " of " + grants + " grants applied; " + queue + "; " + log);
        return app;
    }

    private static boolean drained(long userId, long grants) {
        return Ledger.grants(CONSUMER, userId) == grants
                && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0;
    }
}
