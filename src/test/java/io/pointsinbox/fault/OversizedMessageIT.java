package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.IntStream;

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
        List<String> options = memoryOptions();
        assertTrue(options.contains("-Xmx48m"), "the recommended heap: " + options);
        String head = "{\"messageId\":\"" + UUID.randomUUID() + "\",\"type\":\"PointsGranted.v1\",\"payload\":"
                + "{\"userId\":1,\"amount\":1},\"padding\":\"";
        String oversized = head + "x".repeat(OVERSIZED_MIB * 1024 * 1024 - head.length() - 2) + "\"}";
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendJsonData(oversized, null);
        }
        long userId = 7_700_000L + System.nanoTime() % 100_000;
        List<String> grants = IntStream.range(0, GRANTS).mapToObj(i -> grant(UUID.randomUUID(), userId, 3)).toList();
        ArtemisTestResource.preload(grants);

        Path log = SERVICES.log("service.log");
        AppProcess app = AppProcess.start(ProcessHandle.current().info().command().orElse("java"), options,
                SERVICES.environment(), log);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (app.alive() && !drained(userId) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            OptionalInt exit = app.awaitExit(Duration.ofMillis(500));
            assertTrue(exit.isEmpty(), "the service exited (" + exit + ") instead of refusing the message; "
                    + ArtemisTestResource.describe(ArtemisTestResource.ADDRESS));
            assertTrue(drained(userId), "not drained in 90 s: " + Ledger.grants(CONSUMER, userId) + " of " + GRANTS
                    + " grants applied; " + ArtemisTestResource.describe(ArtemisTestResource.ADDRESS));
            org.awaitility.Awaitility.await("ready").atMost(Duration.ofSeconds(30)).until(app::ready);

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

    private static boolean drained(long userId) {
        return Ledger.grants(CONSUMER, userId) == GRANTS
                && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0;
    }
}
