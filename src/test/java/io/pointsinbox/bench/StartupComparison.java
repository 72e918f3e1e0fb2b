package io.pointsinbox.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.ParallelSenders;

/**
 * Start-up time and memory of several packagings of the same application, measured side by side: the variants are
 * started in turn, round after round, so that the machine's drift hits them all alike. Time to ready is from
 * process start to the first 200 of {@code /q/health/ready} (broker connected, database reachable); RSS is read
 * from /proc after start and after a backlog of messages has been applied.
 *
 * <p>
 * Variants come from {@code bench.startup-variants}: {@code label|java binary|application dir|JVM options;...}; an
 * option {@code env:NAME=value} sets an environment variable of that variant's process instead.
 */
final class StartupComparison {

    private record Variant(String label, String java, Path appDir, List<String> options) {

        List<String> jvmOptions() {
            return options.stream().filter(option -> !option.startsWith("env:")).toList();
        }

        Map<String, String> env(Map<String, String> common) {
            Map<String, String> env = new LinkedHashMap<>(common);
            options.stream().filter(option -> option.startsWith("env:")).map(option -> option.substring(4).split("=", 2))
                    .forEach(pair -> env.put(pair[0], pair[1]));
            return env;
        }
    }

    private final Map<String, String> env;
    private final Path out;
    private final List<Variant> variants = new ArrayList<>();
    private final int rounds = Integer.getInteger("bench.startup-rounds", 5);
    private final int rssMessages = Integer.getInteger("bench.rss-messages", 100_000);
    private final Map<String, List<Double>> ready = new LinkedHashMap<>();
    private final Map<String, List<Double>> quarkusStarted = new LinkedHashMap<>();
    private final Map<String, List<Double>> rssAfterStart = new LinkedHashMap<>();
    private final Map<String, Double> rssAfterMessages = new LinkedHashMap<>();
    private final Map<String, Double> drainRate = new LinkedHashMap<>();

    StartupComparison(Map<String, String> env, Path out, String spec) {
        this.env = env;
        this.out = out;
        for (String entry : spec.split(";")) {
            String[] parts = entry.split("\\|", -1);
            if (parts.length < 3) {
                throw new IllegalArgumentException("variant '" + entry + "': expected label|java|appDir|options");
            }
            List<String> options = parts.length > 3 && !parts[3].isBlank()
                    ? Arrays.asList(parts[3].trim().split("\\s+"))
                    : List.of();
            variants.add(new Variant(parts[0], parts[1], Path.of(parts[2]), options));
        }
    }

    void run() throws Exception {
        Ledger.reset();
        for (int round = 1; round <= rounds; round++) {
            for (Variant variant : variants) {
                long start = System.nanoTime();
                Path log = out.resolve("logs").resolve("startup-" + slug(variant.label()) + "-" + round + ".log");
                Files.deleteIfExists(log);
                AppProcess app = AppProcess.start(variant.appDir(), variant.java(), variant.jvmOptions(), variant.env(env), log);
                while (!app.ready()) {
                    if (!app.alive() || System.nanoTime() - start > 120e9) {
                        throw new IllegalStateException(variant.label() + " did not start, see " + log);
                    }
                    Thread.sleep(5);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                ready.computeIfAbsent(variant.label(), k -> new ArrayList<>()).add(seconds);
                rssAfterStart.computeIfAbsent(variant.label(), k -> new ArrayList<>()).add((double) app.rssMiB());
                app.terminate(Duration.ofSeconds(30));
                Matcher started = Pattern.compile("started in ([0-9.]+)s").matcher(Files.readString(log));
                if (started.find()) {
                    quarkusStarted.computeIfAbsent(variant.label(), k -> new ArrayList<>())
                            .add(Double.parseDouble(started.group(1)));
                }
                System.out.printf("[startup] round %d, %s: ready after %.2f s%n", round, variant.label(), seconds);
            }
        }
        if (rssMessages > 0) {
            for (Variant variant : variants) {
                measureRssAfterMessages(variant);
            }
        }
        report();
    }

    private void measureRssAfterMessages(Variant variant) throws Exception {
        Ledger.reset();
        List<String> bodies = new ArrayList<>(rssMessages);
        for (int i = 0; i < rssMessages; i++) {
            bodies.add(AmqpTestClient.grant(UUID.randomUUID(), 1 + i % 1000, 10));
        }
        ParallelSenders.split(bodies, 4);
        Path log = out.resolve("logs").resolve("rss-" + slug(variant.label()) + ".log");
        Files.deleteIfExists(log);
        AppProcess app = AppProcess.start(variant.appDir(), variant.java(), variant.jvmOptions(), variant.env(env), log);
        long start = System.nanoTime();
        while (ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) > 0) {
            if (!app.alive() || System.nanoTime() - start > 1_800e9) {
                throw new IllegalStateException(variant.label() + " did not drain the backlog, see " + log);
            }
            Thread.sleep(50);
        }
        drainRate.put(variant.label(), rssMessages / ((System.nanoTime() - start) / 1e9));
        rssAfterMessages.put(variant.label(), (double) app.rssMiB());
        System.out.printf("[startup] %s: RSS %d MiB after %d messages%n", variant.label(), app.rssMiB(), rssMessages);
        app.terminate(Duration.ofSeconds(30));
    }

    private void report() throws Exception {
        String baseline = variants.get(0).label();
        double baselineReady = Benchmark.median(ready.get(baseline));
        StringBuilder md = new StringBuilder();
        md.append("# points-inbox start-up and memory\n\n").append(LocalDate.now()).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, medians of ").append(rounds)
                .append(" interleaved rounds; -Xmx256m unless a variant sets its own options (listed below).\n\n")
                .append("| packaging | time to ready s | ratio to ").append(baseline)
                .append(" | Quarkus \"started in\" s | RSS after start MiB | RSS after ").append(rssMessages)
                .append(" messages MiB | drain msg/s (incl. warm-up) |\n|---|---|---|---|---|---|---|\n");
        for (Variant variant : variants) {
            String label = variant.label();
            md.append(String.format("| %s | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f |%n", label, Benchmark.median(ready.get(label)),
                    Benchmark.median(ready.get(label)) / baselineReady, Benchmark.median(quarkusStarted.get(label)),
                    Benchmark.median(rssAfterStart.get(label)), rssAfterMessages.getOrDefault(label, Double.NaN),
                    drainRate.getOrDefault(label, Double.NaN)));
        }
        md.append("\nOptions:\n\n");
        for (Variant variant : variants) {
            md.append("- ").append(variant.label()).append(": `").append(variant.java()).append(' ')
                    .append(String.join(" ", variant.options())).append("`\n");
        }
        md.append("\nSamples (time to ready, s): ").append(ready).append('\n');
        Files.writeString(out.resolve("startup.md"), md);
        System.out.println(md);
        System.out.println("Written: " + out.resolve("startup.md"));
    }

    private static String slug(String label) {
        return label.replaceAll("[^A-Za-z0-9]+", "-");
    }
}
