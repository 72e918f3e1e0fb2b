package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.ParallelSenders;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Bad input of every kind interleaved with valid grants, from several senders: every grant applied once, every bad
 * message on the dead-letter address, nothing left unsettled, and the service ready throughout. The time of the
 * flood is printed beside the time of the same grants alone (a figure, not an assertion: this machine is shared).
 */
@QuarkusTest
class PoisonFloodTest extends InboxTestBase {

    private static final int GRANTS = 2_000;
    private static final int POISON = 2_000;
    private static final int KINDS = 10;

    @TestHTTPResource("/q/health/ready")
    URL ready;

    @Test
    void twoThousandPoisonMessagesOfEveryKindAmongTwoThousandGrants() throws Exception {
        long alone = drain(grants(), 0);
        Ledger.reset();

        List<Message> flood = new ArrayList<>(grants());
        for (int i = 0; i < POISON; i++) {
            flood.add(poison(i));
        }
        Collections.shuffle(flood);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger readinessChecks = new AtomicInteger();
        AtomicInteger readinessDown = new AtomicInteger();
        CompletableFuture<Void> readiness = CompletableFuture.runAsync(() -> watch(running, readinessChecks,
                readinessDown));
        long withPoison;
        try {
            withPoison = drain(flood, POISON);
        } finally {
            running.set(false);
            readiness.join();
        }
        System.out.printf("poison flood: %d grants alone drained in %d ms; with %d poison messages interleaved in %d ms"
                + " (%.2fx)%n", GRANTS, alone, POISON, withPoison, (double) withPoison / alone);

        assertEquals(POISON, deadLettered(), "every poison message dead-lettered, once");
        assertEquals(GRANTS, Ledger.totalRows("inbox_message"), "every grant claimed once");
        assertEquals(GRANTS, Ledger.single("select coalesce(sum(balance), 0) from user_points"),
                "every grant applied once");
        assertEquals(0, ArtemisTestResource.highestDeliveryCount(ArtemisTestResource.DEAD_LETTER),
                "every poison message was settled on its first delivery");
        assertTrue(readinessChecks.get() > 0, "readiness was checked during the flood");
        assertEquals(0, readinessDown.get(), "readiness stayed up throughout");
        assertNothingUnacknowledged();
    }

    /** Sends the messages from four senders and returns the milliseconds until all are settled and dead-lettered. */
    private static long drain(List<Message> messages, int poison) throws Exception {
        long start = System.nanoTime();
        ParallelSenders.splitMessages(messages, 4);
        await("drained").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0
                        && deadLettered() >= poison);
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static List<Message> grants() {
        List<Message> grants = new ArrayList<>();
        for (int i = 0; i < GRANTS; i++) {
            grants.add(message(new AmqpValue(grant(UUID.randomUUID(), 7_000 + i % 50, 1)), null));
        }
        return grants;
    }

    /** One of ten kinds of bad input, in turn: undecodable, ambiguous, invalid, or not JSON at all. */
    private static Message poison(int i) {
        String id = UUID.randomUUID().toString();
        return switch (i % KINDS) {
            case 0 -> message(data("{\"messageId\":\"" + id + "\","), "application/json");
            case 1 -> message(new Data(new Binary(new byte[] { (byte) 0xff, (byte) 0xfe, 0, (byte) i })),
                    "application/json");
            case 2 -> message(data("[".repeat(1_001) + "]".repeat(1_001)), "application/json");
            case 3 -> message(data("{\"messageId\":\"" + id + "\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":"
                    + "7000,\"amount\":1,\"amount\":1000000}}"), "application/json");
            case 4 -> message(new AmqpValue(grant(UUID.randomUUID(), 7_000, -i - 1)), null);
            case 5 -> message(new AmqpValue(grant(UUID.randomUUID(), 7_000, 1).replace("PointsGranted.v1",
                    "Unknown.v" + i)), null);
            case 6 -> message(new AmqpValue("{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":7000,"
                    + "\"amount\":1}}"), null);
            case 7 -> message(new AmqpValue(Map.of("messageId", id, "amount", 1L)), null);
            case 8 -> message(new AmqpSequence(List.of(1L, 2L)), null);
            default -> message(null, null);
        };
    }

    private static Message message(org.apache.qpid.proton.amqp.messaging.Section body, String contentType) {
        Message message = Message.Factory.create();
        message.setDurable(true);
        if (contentType != null) {
            message.setContentType(contentType);
        }
        if (body != null) {
            message.setBody(body);
        }
        return message;
    }

    private static Data data(String text) {
        return new Data(new Binary(text.getBytes(StandardCharsets.UTF_8)));
    }

    private void watch(AtomicBoolean running, AtomicInteger checks, AtomicInteger down) {
        HttpClient client = HttpClient.newHttpClient();
        while (running.get()) {
            try {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(ready.toString()))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                checks.incrementAndGet();
                if (response.statusCode() != 200) {
                    down.incrementAndGet();
                }
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                down.incrementAndGet();
            }
        }
    }
}
