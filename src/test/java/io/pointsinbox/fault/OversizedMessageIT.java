package io.pointsinbox.fault;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * A message far larger than the heap of the recommended configuration. The AMQP library under the connector reads a
 * whole message into memory before the service can refuse it by size, and no broker setting bounds the size of a
 * message, so such a message exhausts the heap. Without {@code -XX:+ExitOnOutOfMemoryError} the process stayed up,
 * its event loop failing on every read: consumption stopped for good while liveness still answered now and then.
 * With it (docker/jvm.options), the process exits, the starts that the broker counts spend the message's delivery
 * attempts, the broker moves it to its dead-letter address at {@code max-delivery-attempts}, and the messages behind
 * it are applied once.
 */
class OversizedMessageIT {

    private static final String CONSUMER = "points-ledger";
    private static final int OVERSIZED_MIB = 40;
    private static final int GRANTS = 50;
    /**
     * A start that exits before the broker has finished sending it the message costs no delivery attempt, and how
     * many do depends on the machine's load: 4 and 8 starts for 3 attempts alone, more than 15 once under a full
     * test suite.
     */
    private static final int MOST_STARTS = 40;

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
    void aMessageLargerThanTheHeapEndsOnTheDeadLetterAddressAndTheRestIsAppliedOnce() throws Exception {
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
        Map<String, String> env = SERVICES.environment();

        List<Integer> exitCodes = new ArrayList<>();
        AppProcess app = null;
        for (int start = 1; start <= MOST_STARTS && app == null; start++) {
            AppProcess candidate = AppProcess.start(ProcessHandle.current().info().command().orElse("java"), options,
                    env, SERVICES.log("start-" + start + ".log"));
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (candidate.alive() && !drained(userId) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            OptionalInt exit = candidate.awaitExit(Duration.ofMillis(500));
            if (exit.isPresent()) {
                exitCodes.add(exit.getAsInt());
            } else if (drained(userId)) {
                app = candidate;
            } else {
                candidate.kill();
                fail("start " + start + " neither exited nor made progress in 90 s: the service is wedged ("
                        + Ledger.grants(CONSUMER, userId) + " of " + GRANTS + " grants applied; "
                        + ArtemisTestResource.describe(ArtemisTestResource.ADDRESS) + ")");
            }
        }
        assertTrue(app != null, "still not drained after " + MOST_STARTS + " starts, exits " + exitCodes + "; "
                + ArtemisTestResource.describe(ArtemisTestResource.ADDRESS));
        AppProcess last = app;
        org.awaitility.Awaitility.await("ready").atMost(Duration.ofSeconds(30)).until(last::ready);

        assertFalse(exitCodes.isEmpty(), "the oversized message exhausted the heap at least once");
        // 3: the JVM's exit code for -XX:+ExitOnOutOfMemoryError; anything else is another failure.
        assertEquals(List.of(), exitCodes.stream().filter(code -> code != 3).toList(), "exits other than OOM");
        assertEquals(GRANTS, Ledger.grants(CONSUMER, userId), "every grant behind it applied once");
        assertEquals(3L * GRANTS, Ledger.balance(CONSUMER, userId), "balance");
        assertEquals(1, ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount(),
                "the oversized message, and only it, on the dead-letter address");
        assertEquals(0, ArtemisTestResource.pending(ArtemisTestResource.ADDRESS), "nothing left behind");
        System.out.printf("OVERSIZED | %d MiB | exits %s | then drained: %d grants applied once%n", OVERSIZED_MIB,
                exitCodes, GRANTS);
        last.terminate(Duration.ofSeconds(30));
    }

    private static boolean drained(long userId) {
        return Ledger.grants(CONSUMER, userId) == GRANTS
                && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0;
    }
}
