package io.pointsinbox.api;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.RepeatedTest;

import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.Tokens;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A sender retrying one request many times at once: every answer is the message's, never a 5xx. Each duplicate once
 * held its failed transaction's connection while asking the pool for a second one to read the first delivery's row;
 * enough of them at once took every connection and waited for each other until the pool's acquisition timeout.
 */
@QuarkusTest
class ConcurrentHttpDuplicatesTest extends InboxTestBase {

    static final int REQUESTS = 100;

    @TestHTTPResource("/")
    URL root;

    @RepeatedTest(5)
    void aHundredConcurrentCopiesOfOneRequestAreOneProcessedAndDuplicatesNeverAnError() throws Exception {
        UUID id = UUID.randomUUID();
        long user = 8_800;
        String token = Tokens.withRoles(Tokens.WRITER);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(root.toURI().resolve("messages/points-granted"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(grant(id, user, 25))).build();
        AtomicBoolean burst = new AtomicBoolean(true);
        AtomicInteger readinessAnswers = new AtomicInteger();
        AtomicInteger readinessDown = new AtomicInteger();
        URI ready = root.toURI().resolve("q/health/ready");
        ExecutorService readiness = Executors.newSingleThreadExecutor();
        readiness.submit(() -> poll(client, ready, burst, readinessAnswers, readinessDown));

        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            responses.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        Map<String, Integer> answers = new TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            HttpResponse<String> answer = response.get();
            String status = answer.statusCode() + " " + answer.body().replaceAll(".*\"status\":\"([a-z_]+)\".*", "$1");
            answers.merge(answer.statusCode() >= 500 ? answer.statusCode() + " " + answer.body() : status, 1,
                    Integer::sum);
        }
        burst.set(false);
        readiness.shutdown();

        assertEquals(Map.of("200 duplicate_ignored", REQUESTS - 1, "200 processed", 1), answers,
                "one copy processed, every other one a duplicate, none an error");
        assertEquals(25, Ledger.balance(CONSUMER, user), "applied once");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
        assertTrue(readinessAnswers.get() > 0, "readiness answered during the burst");
        assertEquals(0, readinessDown.get(), "readiness stayed up during the burst");
    }

    private static void poll(HttpClient client, URI ready, AtomicBoolean burst, AtomicInteger answers,
            AtomicInteger down) {
        while (burst.get()) {
            try {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(ready)
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                answers.incrementAndGet();
                if (response.statusCode() != 200) {
                    down.incrementAndGet();
                }
            } catch (Exception e) {
                down.incrementAndGet();
            }
        }
    }
}
