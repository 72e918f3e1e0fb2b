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

    /** A balance that could not be read: the service answered 503 or did not answer. */
    private static final long UNAVAILABLE = -1;

    static final String USAGE = "usage: bin/publish [--messages 10000] [--duplicates 0.2] [--senders 4] [--users 10]"
            + " [--first-user 900000] [--amqp-host 127.0.0.1] [--amqp-port 5673] [--address points-granted]"
            + " [--http http://localhost:8080] [--wait-seconds 120]";

    static final String HELP = """
              --messages N        messages to publish (10000)
              --duplicates S      share of them that repeat an earlier message, 0 <= S < 1 (0.2)
              --senders N         parallel AMQP senders (4)
              --users N           users the grants are spread over (10), from --first-user (900000)
              --amqp-host H       broker host (AMQP_HOST or 127.0.0.1)
              --amqp-port P       broker port (AMQP_PORT or 5673, the port of bin/run-local's broker)
              --address A         address to send to (points-granted)
              --http URL          the service, read back for the balances (http://localhost:8080)
              --wait-seconds N    how long to wait for the balances to match (120)
            Exit status: 0 every balance as exactly-once predicts, 1 a balance differs, 2 bad option, 3 nothing
            answers at --http or the broker address.""";

    /** What a run publishes and where; {@link #parse} rejects what it cannot use, naming the option. */
    record Options(int messages, double duplicateShare, int senders, int users, long firstUser, String amqpHost,
            int amqpPort, String address, String http, long waitSeconds) {

        static Options parse(String... args) {
            Map<String, String> given = new HashMap<>();
            for (int i = 0; i < args.length; i += 2) {
                String name = args[i].startsWith("--") ? args[i].substring(2) : null;
                if (name == null || !KNOWN.contains(name)) {
                    throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option '" + args[i] + "' needs a value");
                }
                given.put(name, args[i + 1]);
            }
            int messages = integer(given, "messages", "10000", 1);
            double share = number(given, "duplicates", "0.2");
            if (!(share >= 0 && share < 1)) {
                throw new IllegalArgumentException("--duplicates is the share of duplicates, from 0 up to (not"
                        + " including) 1, got " + given.get("duplicates"));
            }
            if (Math.round(messages * (1 - share)) < 1) {
                throw new IllegalArgumentException("--messages " + messages + " with --duplicates " + share
                        + " leaves no unique message to duplicate");
            }
            int port = integer(given, "amqp-port", env("AMQP_PORT", "5673"), 1);
            if (port > 65535) {
                throw new IllegalArgumentException("--amqp-port must be a port number, got " + port);
            }
            return new Options(messages, share, integer(given, "senders", "4", 1), integer(given, "users", "10", 1),
                    integer(given, "first-user", "900000", 1), given.getOrDefault("amqp-host",
                            env("AMQP_HOST", "127.0.0.1")), port,
                    given.getOrDefault("address", "points-granted"), given.getOrDefault("http",
                            "http://localhost:8080"), integer(given, "wait-seconds", "120", 1));
        }

        static final List<String> KNOWN = List.of("messages", "duplicates", "senders", "users",
                "first-user", "amqp-host", "amqp-port", "address", "http", "wait-seconds");

        private static int integer(Map<String, String> given, String name, String fallback, int least) {
            String text = given.getOrDefault(name, fallback);
            int value;
            try {
                value = Integer.parseInt(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " must be a whole number, got '" + text + "'");
            }
            if (value < least) {
                throw new IllegalArgumentException("--" + name + " must be at least " + least + ", got " + value);
            }
            return value;
        }

        private static double number(Map<String, String> given, String name, String fallback) {
            String text = given.getOrDefault(name, fallback);
            try {
                return Double.parseDouble(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " must be a number, got '" + text + "'");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.println(USAGE);
            System.out.println(HELP);
            System.exit(0);
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bin/publish: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        try {
            publish(options);
        } catch (Exception e) {
            // The AMQP clients' threads would keep the JVM alive after an uncaught exception: say it and exit.
            System.err.println("\nbin/publish: " + e.getMessage());
            System.exit(3);
        }
    }

    private static void publish(Options options) throws Exception {
        int messages = options.messages();
        double duplicateShare = options.duplicateShare();
        int senders = options.senders();
        int users = options.users();
        String amqpHost = options.amqpHost();
        int amqpPort = options.amqpPort();
        String address = options.address();
        String http = options.http();
        long firstUser = options.firstUser();

        HttpClient client = HttpClient.newHttpClient();
        Map<Long, Long> expected = new TreeMap<>();
        try {
            for (long user = firstUser; user < firstUser + users; user++) {
                long balance = balance(client, http, user);
                if (balance == UNAVAILABLE) {
                    System.err.println("bin/publish: the points-inbox at " + http + " answers 503: its database"
                            + " does not answer yet (see /q/health/ready)");
                    System.exit(3);
                }
                expected.put(user, balance);
            }
        } catch (java.net.ConnectException e) {
            System.err.println("bin/publish: no points-inbox answers at " + http + " (start it with bin/run-local,"
                    + " or pass --http)");
            System.exit(3);
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
            try {
                future.get();
            } catch (java.util.concurrent.ExecutionException e) {
                System.err.println("\nbin/publish: sending to the broker at " + amqpHost + ":" + amqpPort
                        + " failed: " + e.getCause().getMessage() + " (is it running? see --amqp-host, --amqp-port)");
                System.exit(3);
            }
        }
        pool.shutdown();
        System.out.println();

        long deadline = System.currentTimeMillis() + options.waitSeconds() * 1000;
        Map<Long, Long> actual = new TreeMap<>();
        do {
            Thread.sleep(500);
            for (long user : expected.keySet()) {
                try {
                    actual.put(user, balance(client, http, user));
                } catch (java.io.IOException e) {
                    actual.put(user, UNAVAILABLE); // the service is restarting: read again until the deadline
                }
            }
        } while (!actual.equals(expected) && System.currentTimeMillis() < deadline);

        System.out.printf("%-10s %12s %12s%n", "user", "expected", "actual");
        expected.forEach((user, balance) -> System.out.printf("%-10d %12d %12s%s%n", user, balance,
                actual.get(user) == UNAVAILABLE ? "unavailable" : String.valueOf(actual.get(user)),
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
        if (response.statusCode() == 503) {
            return UNAVAILABLE; // the database does not answer yet: not a balance
        }
        if (response.statusCode() == 401 || response.statusCode() == 403) {
            throw new IllegalStateException("GET /users/" + user + "/points answered " + response.statusCode()
                    + " (with POINTS_READ_POLICY=authenticated, reads need a token)");
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /users/" + user + "/points answered " + response.statusCode()
                    + ": " + response.body());
        }
        Matcher matcher = Pattern.compile("\"balance\"\\s*:\\s*(\\d+)").matcher(response.body());
        if (!matcher.find()) {
            throw new IllegalStateException("unexpected body " + response.body());
        }
        return Long.parseLong(matcher.group(1));
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
