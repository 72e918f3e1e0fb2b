package io.pointsinbox.tools;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pointsinbox.support.AmqpTestClient;

/**
 * The first demo: publishes N grants (a share of them duplicates) from parallel senders to a running points-inbox,
 * then reads the balances back over HTTP and fails loudly if any differs from what exactly-once predicts.
 * Run it with {@code bin/publish --messages 10000 --duplicates 0.2 --senders 4}.
 */
public final class Publisher {

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        int messages = Integer.parseInt(options.getOrDefault("messages", "10000"));
        double duplicateShare = Double.parseDouble(options.getOrDefault("duplicates", "0.2"));
        int senders = Integer.parseInt(options.getOrDefault("senders", "4"));
        int users = Integer.parseInt(options.getOrDefault("users", "10"));
        String amqpHost = options.getOrDefault("amqp-host", env("AMQP_HOST", "127.0.0.1"));
        int amqpPort = Integer.parseInt(options.getOrDefault("amqp-port", env("AMQP_PORT", "5673")));
        String address = options.getOrDefault("address", "points-granted");
        String http = options.getOrDefault("http", "http://localhost:8080");
        long firstUser = Long.parseLong(options.getOrDefault("first-user", "900000"));

        HttpClient client = HttpClient.newHttpClient();
        Map<Long, Long> expected = new TreeMap<>();
        for (long user = firstUser; user < firstUser + users; user++) {
            expected.put(user, balance(client, http, user));
        }
        Random random = new Random();
        int unique = (int) Math.round(messages * (1 - duplicateShare));
        List<String> distinct = new ArrayList<>();
        for (int i = 0; i < unique; i++) {
            long user = firstUser + random.nextInt(users);
            long amount = 1 + random.nextInt(100);
            expected.merge(user, amount, Long::sum);
            distinct.add(AmqpTestClient.grant(UUID.randomUUID(), user, amount));
        }
        List<String> stream = new ArrayList<>(distinct);
        while (stream.size() < messages) {
            stream.add(distinct.get(random.nextInt(unique)));
        }
        Collections.shuffle(stream, random);
        System.out.printf("Publishing %d messages (%d unique, %d duplicates) from %d senders to %s:%d/%s%n",
                messages, unique, messages - unique, senders, amqpHost, amqpPort, address);

        AtomicInteger sent = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        List<Future<?>> running = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            List<String> share = stream.subList(s * messages / senders, (s + 1) * messages / senders);
            running.add(pool.submit(() -> {
                try (AmqpTestClient sender = new AmqpTestClient(amqpHost, amqpPort, address)) {
                    for (String body : share) {
                        sender.sendText(body);
                        int done = sent.incrementAndGet();
                        if (done % 500 == 0 || done == messages) {
                            System.out.printf("\rsent %d/%d", done, messages);
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> future : running) {
            future.get();
        }
        pool.shutdown();
        System.out.println();

        long deadline = System.currentTimeMillis() + Long.parseLong(options.getOrDefault("wait-seconds", "120")) * 1000;
        Map<Long, Long> actual = new TreeMap<>();
        do {
            Thread.sleep(500);
            for (long user : expected.keySet()) {
                actual.put(user, balance(client, http, user));
            }
        } while (!actual.equals(expected) && System.currentTimeMillis() < deadline);

        System.out.printf("%-10s %12s %12s%n", "user", "expected", "actual");
        expected.forEach((user, balance) -> System.out.printf("%-10d %12d %12d%s%n", user, balance, actual.get(user),
                balance.equals(actual.get(user)) ? "" : "   <-- MISMATCH"));
        if (!actual.equals(expected)) {
            System.err.println("FAILED: balances differ from exactly-once processing");
            System.exit(1);
        }
        System.out.println("OK: every message applied exactly once");
        System.exit(0);
    }

    private static long balance(HttpClient client, String http, long user) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(http + "/users/" + user
                + "/points")).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404) {
            return 0;
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /users/" + user + "/points answered " + response.statusCode()
                    + " (with POINTS_READ_POLICY=authenticated, reads need a token)");
        }
        Matcher matcher = Pattern.compile("\"balance\"\\s*:\\s*(\\d+)").matcher(response.body());
        if (!matcher.find()) {
            throw new IllegalStateException("unexpected body " + response.body());
        }
        return Long.parseLong(matcher.group(1));
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
