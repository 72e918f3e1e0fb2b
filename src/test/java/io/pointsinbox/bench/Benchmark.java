package io.pointsinbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.ParallelSenders;
import io.pointsinbox.support.PostgresTestDatabase;

/**
 * Throughput of the packaged application against PostgreSQL alone doing the same transaction (pgbench), at the same
 * concurrency, interleaved and repeated; plus the duplicate path, enqueue-to-commit latency and start-up figures.
 * Run it with {@code bench/run.sh}; results go to {@code target/bench/}.
 */
public final class Benchmark {

    private static final Path OUT = Path.of("target", "bench");
    private static final Path APP = Path.of("target", "quarkus-app").toAbsolutePath();
    private static final String DB = System.getProperty("bench.database", "points_inbox_bench");

    private final int messages = Integer.getInteger("bench.messages", 20_000);
    private final List<Integer> concurrencies = ints(System.getProperty("bench.concurrency", "4,8,16"));
    private final List<Double> duplicateShares = doubles(System.getProperty("bench.duplicates", "0,0.2"));
    private final int repeats = Integer.getInteger("bench.repeats", 3);
    /** Distinct warm-up messages queued (twice) ahead of each measured stream; 0 measures from a cold JVM. */
    private final int warmup = Integer.getInteger("bench.warmup", 60_000);
    private final int pgbenchSeconds = Integer.getInteger("bench.pgbench-seconds", 10);
    /** Old inbox rows planted before the cleanup runs; 0 skips the cleanup comparison. */
    private final int cleanupRows = Integer.getInteger("bench.cleanup-rows", 1_000_000);
    private final int cleanupConcurrency = Integer.getInteger("bench.cleanup-concurrency", 8);
    /** Whether batched mode is measured too, at each concurrency and with this many workers (0 skips that one). */
    private final boolean batched = Boolean.parseBoolean(System.getProperty("bench.batched", "true"));
    private final int batchWorkers = Integer.getInteger("bench.batch-workers", 64);
    /**
     * The {@code quarkus-app} directory of another build (say, a worktree of an earlier commit): every application
     * stream is then drained by both builds in the same repeat, in alternating order, and reported side by side.
     * Comparing two builds in one run is the only comparison this shared machine's drifting load allows.
     */
    private final Path baseline = System.getProperty("bench.baseline-app", "").isBlank() ? null
            : Path.of(System.getProperty("bench.baseline-app")).toAbsolutePath();
    /** Extra JVM options for the application, e.g. a flight recording (APP_JVM_OPTIONS in bench/run.sh). */
    private final List<String> appJvmOptions = System.getProperty("bench.app-jvm-options", "").isBlank() ? List.of()
            : List.of(System.getProperty("bench.app-jvm-options").trim().split("\\s+"));
    private final Map<String, String> env = new HashMap<>();
    private final Map<String, List<Double>> samples = new TreeMap<>();
    /** CPU milliseconds per message (per transaction for pgbench), by run, then by party. */
    private final Map<String, Map<String, List<Double>>> cpu = new LinkedHashMap<>();
    private String jdbcUrl;

    public static void main(String[] args) {
        int status = 0;
        try {
            new Benchmark().run();
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        // The broker's and the AMQP clients' threads outlive the run: without an exit the JVM would stay, idle but
        // not quite, and load the machine of the next run.
        System.exit(status);
    }

    private void run() throws Exception {
        if (baseline != null && !Files.exists(baseline.resolve("quarkus-run.jar"))) {
            throw new IllegalArgumentException("no quarkus-run.jar in the baseline " + baseline);
        }
        Files.createDirectories(OUT);
        ArtemisTestResource broker = new ArtemisTestResource();
        Map<String, String> amqp = broker.start();
        try {
            prepareDatabase();
            env.putAll(AppProcess.environment(amqp, jdbcUrl, user(), password()));
            app(8, "migrate").terminate(Duration.ofSeconds(30));
            String variants = System.getProperty("bench.startup-variants");
            if (variants != null) {
                new StartupComparison(env, OUT, variants).run();
                return;
            }
            writePgbenchScript();
            for (int repeat = 1; repeat <= repeats; repeat++) {
                for (int concurrency : concurrencies) {
                    for (double share : duplicateShares) {
                        for (Path build : builds(repeat)) {
                            measureApplication(build, concurrency, share, repeat, false);
                        }
                    }
                    if (batched) {
                        for (Path build : builds(repeat)) {
                            measureApplication(build, concurrency, 0, repeat, true);
                        }
                    }
                    measurePgbench(concurrency, repeat);
                }
                if (batchWorkersLevelOfItsOwn()) {
                    for (Path build : builds(repeat)) {
                        measureApplication(build, batchWorkers, 0, repeat, true);
                    }
                    // pgbench with as many clients as messages in flight: the same concurrency, one transaction each.
                    measurePgbench(batchWorkers, repeat);
                }
                if (cleanupRows > 0) {
                    measureCleanupEffect(repeat);
                }
            }
            if (!concurrencies.isEmpty()) {
                measureLatency(concurrencies.contains(8) ? 8 : concurrencies.get(0));
            }
            report();
        } finally {
            broker.stop();
        }
    }

    /**
     * Drains a preloaded stream with a fresh application; for a stream without duplicates, drains the same stream
     * again (nothing but already-applied ids). In batched mode {@code concurrency} is the number of workers, that
     * is of messages in flight; the batches run on the default two batch threads.
     */
    private void measureApplication(Path build, int concurrency, double share, int repeat, boolean inBatches)
            throws Exception {
        Ledger.reset();
        List<String> stream = stream(share);
        preloadAfterWarmUp(stream);
        String mode = (build.equals(baseline) ? "baseline " : "app ") + (inBatches ? "batched " : "");
        Map<String, String> extra = inBatches ? Map.of("POINTS_BATCH_ENABLED", "true") : Map.of();
        String logName = (build.equals(baseline) ? "baseline-" : "") + (inBatches ? "batched-" : "app-") + "c"
                + concurrency;
        AppProcess app = app(build, concurrency, logName, extra);
        double rate = drain(stream.size(), mode + label(share) + " c" + concurrency, app);
        record(mode + label(share) + " c" + concurrency, rate);
        log("repeat %d, concurrency %d, %s%s duplicates: %.0f messages/s", repeat, concurrency, mode, label(share),
                rate);
        if (inBatches) {
            recordBatches("batched " + label(share) + " duplicates", concurrency, app);
        }
        if (share == 0) {
            app.terminate(Duration.ofSeconds(30));
            preloadAfterWarmUp(stream);
            app = app(build, concurrency, logName + "-dup", extra);
            double duplicates = drain(stream.size(), mode + "duplicates-only c" + concurrency, app);
            record(mode + "duplicates-only c" + concurrency, duplicates);
            log("repeat %d, concurrency %d, %sduplicates only: %.0f messages/s", repeat, concurrency, mode,
                    duplicates);
            if (inBatches) {
                recordBatches("batched duplicates only", concurrency, app);
            }
        }
        if (!inBatches && share > 0 && repeat == 1 && concurrency == concurrencies.get(0) && !build.equals(baseline)) {
            // What an operator sees after a storm with duplicates: the service's own series, without buckets.
            Files.write(OUT.resolve("metrics-after-storm.txt"), app.get("/q/metrics").lines()
                    .filter(line -> line.startsWith("points_inbox") && !line.contains("_bucket{")).toList());
        }
        record("rss MiB after run " + mode + "c" + concurrency, app.rssMiB());
        app.terminate(Duration.ofSeconds(30));
    }

    private void recordBatches(String run, int concurrency, AppProcess app) throws IOException {
        record(run + ": largest batch c" + concurrency, app.metric("points_inbox_batch_size_max"));
        record(run + ": mean batch c" + concurrency, app.metric("points_inbox_batch_size_sum")
                / app.metric("points_inbox_batch_size_count"));
    }

    /**
     * The same fresh stream drained with and without the retention cleanup deleting a large backlog of expired
     * rows at the same time (interval 1 s, default batch size), side by side.
     */
    private void measureCleanupEffect(int repeat) throws Exception {
        List<String> stream = stream(0);
        for (boolean cleanup : new boolean[] { false, true }) {
            Ledger.reset();
            Ledger.execute("insert into inbox_message (id, consumer, message_id, message_type, payload_json,"
                    + " payload_hash, outcome, received_at, processed_at) select -g, 'expired', gen_random_uuid(),"
                    + " 'PointsGranted.v1', '{}', 'old', 'PROCESSED', now() - interval '30 days', now() - interval"
                    + " '30 days' from generate_series(1, " + cleanupRows + ") g");
            Ledger.execute("vacuum analyze inbox_message");
            preload(stream);
            Map<String, String> extra = new HashMap<>();
            extra.put("POINTS_RETENTION_ENABLED", String.valueOf(cleanup));
            extra.put("POINTS_RETENTION_CLEANUP_INTERVAL", "1s");
            AppProcess app = app(APP, cleanupConcurrency, cleanup ? "cleanup-on" : "cleanup-off", extra);
            double rate = drain(stream.size(), null, null);
            String name = cleanup ? "cleanup running" : "no cleanup";
            record("app 0% c" + cleanupConcurrency + ", " + name, rate);
            if (cleanup) {
                record("cleanup: rows deleted while draining", app.metric("points_inbox_retention_deleted_total"));
                record("cleanup: seconds spent deleting", app.metric("points_inbox_retention_duration_seconds_sum"));
            }
            log("repeat %d, concurrency %d, %s: %.0f messages/s", repeat, cleanupConcurrency, name, rate);
            app.terminate(Duration.ofSeconds(30));
        }
    }

    private void measurePgbench(int concurrency, int repeat) throws Exception {
        Ledger.reset();
        Process pgbench = new ProcessBuilder("pgbench", "-n", "-h", host(), "-p", port(), "-U", user(), "-c",
                String.valueOf(concurrency), "-j", String.valueOf(Math.min(concurrency, 4)), "-T",
                String.valueOf(pgbenchSeconds), "-f", OUT.resolve("transaction.sql").toString(), DB)
                .redirectErrorStream(true).start();
        CpuMeter meter = CpuMeter.start(-1);
        String output = new String(pgbench.getInputStream().readAllBytes());
        if (pgbench.waitFor() != 0) {
            throw new IllegalStateException("pgbench failed:\n" + output);
        }
        Matcher count = Pattern.compile("number of transactions actually processed: ([0-9]+)").matcher(output);
        if (count.find()) {
            recordCpu("pgbench c" + concurrency, meter, Long.parseLong(count.group(1)));
        }
        Matcher tps = Pattern.compile("tps = ([0-9.]+)").matcher(output);
        if (!tps.find()) {
            throw new IllegalStateException("no tps in pgbench output:\n" + output);
        }
        double rate = Double.parseDouble(tps.group(1));
        record("pgbench c" + concurrency, rate);
        log("repeat %d, concurrency %d, pgbench: %.0f transactions/s", repeat, concurrency, rate);
    }

    /** Enqueue-to-commit time at half the measured throughput, so that it shows the service, not a backlog. */
    private void measureLatency(int concurrency) throws Exception {
        Ledger.reset();
        AppProcess app = app(concurrency, "latency");
        // Warm the JIT first, as for the throughput runs: the figure should show the service, not a cold JVM.
        preloadAfterWarmUp(warmup > 0 ? List.of() : stream(0).subList(0, Math.min(5_000, messages)));
        drain(0, null, null);
        Ledger.reset();
        double fresh = median(samples.get("app 0% c" + concurrency));
        int perSecond = (int) Math.max(50, fresh / 2);
        int total = perSecond * 10;
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            long start = System.nanoTime();
            for (int i = 0; i < total; i++) {
                long due = start + (long) (i * 1e9 / perSecond);
                // Sleep, not spin, until the message is due: a spinning sender would take one of the cores the
                // service, the broker and PostgreSQL share, and the latency would show that.
                for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                sender.sendText("{\"messageId\":\"" + UUID.randomUUID() + "\",\"type\":\"PointsGranted.v1\","
                        + "\"payload\":{\"userId\":" + (1 + i % 1000) + ",\"amount\":1,\"sentAt\":"
                        + System.currentTimeMillis() + "}}");
            }
        }
        drain(0, null, null);
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("""
                        select percentile_cont(0.5) within group (order by ms), percentile_cont(0.99) within group
                        (order by ms) from (select extract(epoch from processed_at) * 1000
                        - (payload_json->>'sentAt')::bigint as ms from inbox_message) t
                        """)) {
            rs.next();
            record("latency p50 ms c" + concurrency + " at " + perSecond + "/s", rs.getDouble(1));
            record("latency p99 ms c" + concurrency + " at " + perSecond + "/s", rs.getDouble(2));
        }
        app.terminate(Duration.ofSeconds(30));
    }

    /**
     * Messages settled per second over the last {@code total} messages of the queue, from the first of them settled
     * to the queue being empty, as the broker sees it; unless {@code run} is null, the CPU time of each party over the
     * same span is recorded under that name.
     */
    private double drain(int total, String run, AppProcess app) throws InterruptedException {
        CpuMeter meter = null;
        long first = 0;
        while (ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) > 0) {
            if (first == 0 && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) < total) {
                first = System.nanoTime();
                meter = run == null ? null : CpuMeter.start(app.pid());
            }
            Thread.sleep(5);
        }
        long end = System.nanoTime();
        if (meter != null) {
            recordCpu(run, meter, total);
        }
        return first == 0 ? 0 : total / ((end - first) / 1e9);
    }

    /**
     * Queues a warm-up ahead of the measured stream: {@code bench.warmup} fresh messages and the same again, so that
     * the JIT has compiled the fresh and the duplicate paths before the measured messages arrive (PostgreSQL, which
     * pgbench measures, needs no warm-up).
     */
    private void preloadAfterWarmUp(List<String> stream) throws Exception {
        if (warmup > 0) {
            List<String> warm = distinct(warmup);
            warm.addAll(warm);
            Collections.shuffle(warm, new Random(7));
            preload(warm);
        }
        preload(stream);
    }

    private List<String> stream(double share) {
        int unique = (int) Math.round(messages * (1 - share));
        List<String> distinct = distinct(unique);
        List<String> all = new ArrayList<>(distinct);
        for (int i = unique; i < messages; i++) {
            all.add(distinct.get(i % unique));
        }
        Collections.shuffle(all, new Random(42));
        return all;
    }

    /** Grants with fresh ids, spread over 1,000 users. */
    private static List<String> distinct(int count) {
        List<String> grants = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            grants.add(AmqpTestClient.grant(UUID.randomUUID(), 1 + i % 1000, 10));
        }
        return grants;
    }

    private static void preload(List<String> stream) throws Exception {
        ParallelSenders.split(stream, 4);
    }

    /**
     * Whether batched mode's {@code bench.batch-workers} level is measured as a step of its own: only when it is not
     * one of the concurrencies already, where batched mode is measured anyway (so no level is measured twice).
     */
    private boolean batchWorkersLevelOfItsOwn() {
        return batched && batchWorkers > 0 && !concurrencies.contains(batchWorkers);
    }

    /** This build, then the baseline if there is one; the other way round in even repeats. */
    private List<Path> builds(int repeat) {
        if (baseline == null) {
            return List.of(APP);
        }
        return repeat % 2 == 1 ? List.of(APP, baseline) : List.of(baseline, APP);
    }

    private AppProcess app(int concurrency, String name) throws Exception {
        return app(APP, concurrency, name, Map.of());
    }

    private AppProcess app(Path build, int concurrency, String name, Map<String, String> extra) throws Exception {
        Map<String, String> appEnv = new HashMap<>(env);
        appEnv.putAll(extra);
        appEnv.put("POINTS_CONCURRENCY", String.valueOf(concurrency));
        appEnv.put("POINTS_DB_POOL_SIZE", String.valueOf(2 * concurrency + 2));
        long start = System.nanoTime();
        AppProcess app = AppProcess.start(build, ProcessHandle.current().info().command().orElse("java"),
                appJvmOptions, appEnv, OUT.resolve("logs").resolve(name + ".log"));
        while (!app.ready()) {
            if (!app.alive() || System.nanoTime() - start > 120e9) {
                throw new IllegalStateException("application did not start, see " + OUT.resolve("logs"));
            }
            Thread.sleep(20);
        }
        record("time to ready s (JDK " + Runtime.version().feature() + " fast-jar)", (System.nanoTime() - start) / 1e9);
        record("rss MiB after start", app.rssMiB());
        return app;
    }

    private void report() throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# points-inbox benchmark\n\n").append(LocalDate.now()).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, JDK ")
                .append(Runtime.version()).append(", ").append(messages).append(" messages per run, medians of ")
                .append(repeats).append(" interleaved repeats.\n\n");
        md.append("| concurrency | pgbench tx/s | app fresh msg/s | ratio app/pgbench | app 20% duplicates msg/s |"
                + " duplicates only msg/s | duplicates/fresh | batched fresh msg/s | batched/pgbench |"
                + " batched duplicates only msg/s | batched duplicates/fresh |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<Integer> xs = new ArrayList<>(concurrencies);
        LinkedHashMap<String, List<Double>> series = new LinkedHashMap<>();
        series.put("pgbench (same transaction)", new ArrayList<>());
        series.put("application, fresh", new ArrayList<>());
        series.put("application, duplicates only", new ArrayList<>());
        for (int c : concurrencies) {
            double pg = median(samples.get("pgbench c" + c));
            double fresh = median(samples.get("app 0% c" + c));
            double mixed = median(samples.getOrDefault("app 20% c" + c, List.of()));
            double dups = median(samples.get("app duplicates-only c" + c));
            double batchFresh = median(samples.getOrDefault("app batched 0% c" + c, List.of()));
            double batchDups = median(samples.getOrDefault("app batched duplicates-only c" + c, List.of()));
            md.append(String.format("| %d | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f | %.0f | %.2f | %.0f | %.2f |%n",
                    c, pg, fresh, fresh / pg, mixed, dups, dups / fresh, batchFresh, batchFresh / pg, batchDups,
                    batchDups / batchFresh));
            series.get("pgbench (same transaction)").add(pg);
            series.get("application, fresh").add(fresh);
            series.get("application, duplicates only").add(dups);
            if (batched) {
                series.computeIfAbsent("application batched, fresh", k -> new ArrayList<>()).add(batchFresh);
            }
        }
        if (batched && batchWorkers > 0) {
            double pg = median(samples.get("pgbench c" + batchWorkers));
            double fresh = median(samples.get("app batched 0% c" + batchWorkers));
            double dups = median(samples.get("app batched duplicates-only c" + batchWorkers));
            md.append(String.format("%n| batched mode, %d workers (messages in flight) | pgbench tx/s, %d clients |"
                    + " batched fresh msg/s | batched/pgbench | batched duplicates only msg/s |"
                    + " batched duplicates/fresh |%n|---|---|---|---|---|---|%n| %s | %.0f | %.0f |"
                    + " %.2f | %.0f | %.2f |%n", batchWorkers, batchWorkers,
                    appJvmOptions.isEmpty() ? "default settings (two batch threads)"
                            : "application options `" + String.join(" ", appJvmOptions) + "`",
                    pg, fresh, fresh / pg, dups, dups / fresh));
        }
        if (baseline != null) {
            md.append(String.format("%n| this build against `%s`, same run | fresh msg/s | baseline fresh msg/s |"
                    + " this/baseline | duplicates only msg/s | baseline duplicates only msg/s | this/baseline |%n"
                    + "|---|---|---|---|---|---|---|%n", baseline));
            List<String> modes = new ArrayList<>(List.of(""));
            if (batched) {
                modes.add("batched ");
            }
            for (String mode : modes) {
                List<Integer> levels = new ArrayList<>(concurrencies);
                if (!mode.isEmpty() && batchWorkersLevelOfItsOwn()) {
                    levels.add(batchWorkers);
                }
                for (int c : levels) {
                    double fresh = median(samples.get("app " + mode + "0% c" + c));
                    double baseFresh = median(samples.get("baseline " + mode + "0% c" + c));
                    double dups = median(samples.get("app " + mode + "duplicates-only c" + c));
                    double baseDups = median(samples.get("baseline " + mode + "duplicates-only c" + c));
                    md.append(String.format("| %sconcurrency %d | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |%n",
                            mode, c, fresh, baseFresh, fresh / baseFresh, dups, baseDups, dups / baseDups));
                }
            }
        }
        if (cleanupRows > 0) {
            double off = median(samples.get("app 0% c" + cleanupConcurrency + ", no cleanup"));
            double on = median(samples.get("app 0% c" + cleanupConcurrency + ", cleanup running"));
            md.append(String.format("%n| concurrency %d, %d expired rows planted | no cleanup msg/s | cleanup running"
                    + " msg/s | ratio |%n|---|---|---|---|%n| fresh messages | %.0f | %.0f | %.2f |%n",
                    cleanupConcurrency, cleanupRows, off, on, on / off));
        }
        if (!cpu.isEmpty()) {
            // Where the cores went: CPU time per message of each party, medians over the repeats.
            List<String> parties = List.of("service", "broker and sender", "postgres", "reaped children (pgbench)");
            md.append("\n| CPU ms per message (pgbench: per transaction) | service | broker (and the idle sender) |"
                    + " PostgreSQL | pgbench client | total |\n|---|---|---|---|---|---|\n");
            cpu.forEach((run, byParty) -> {
                md.append("| ").append(run);
                double total = 0;
                for (String party : parties) {
                    double ms = median(byParty.get(party));
                    md.append(Double.isNaN(ms) ? " | -" : String.format(" | %.3f", ms));
                    total += Double.isNaN(ms) ? 0 : ms;
                }
                md.append(String.format(" | %.3f |%n", total));
            });
        }
        md.append("\n| other measure | median | samples |\n|---|---|---|\n");
        samples.forEach((name, values) -> {
            if (!name.startsWith("app ") && !name.startsWith("baseline ") && !name.startsWith("pgbench")) {
                md.append(String.format("| %s | %.2f | %s |%n", name, median(values), values));
            }
        });
        Files.writeString(OUT.resolve("results.md"), md);
        if (!xs.isEmpty()) {
            Chart.write(OUT.resolve("throughput.png"), "points-inbox: messages applied per second",
                    "consumer concurrency (messages in flight)", "per second", xs, series);
        }
        System.out.println(md);
        System.out.println("Written: " + OUT.resolve("results.md") + ", " + OUT.resolve("throughput.png"));
    }

    private void writePgbenchScript() throws IOException {
        // The transaction the application runs per fresh message: claim, credit, record.
        Files.writeString(OUT.resolve("transaction.sql"), """
                \\set user random(1, 1000)
                BEGIN;
                INSERT INTO inbox_message (id, consumer, message_id, message_type, payload_json, payload_hash,
                    outcome, received_at, processed_at)
                    VALUES (nextval('inbox_message_seq'), 'pgbench', gen_random_uuid(), 'PointsGranted.v1',
                    '{"userId":1,"amount":10}', md5(random()::text), 'PROCESSED', now(), now());
                INSERT INTO user_points (consumer, user_id, balance) VALUES ('pgbench', :user, 10)
                    ON CONFLICT (consumer, user_id) DO UPDATE SET balance = user_points.balance + excluded.balance;
                INSERT INTO point_grant (id, consumer, user_id, amount, kind, message_id, granted_at)
                    VALUES (nextval('point_grant_seq'), 'pgbench', :user, 10, 'GRANT', gen_random_uuid(), now());
                END;
                """.replaceAll("\n    +", " "));
    }

    private void prepareDatabase() throws SQLException {
        String server = "jdbc:postgresql://" + host() + ":" + port() + "/";
        try (Connection connection = DriverManager.getConnection(server + "postgres", user(), password());
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("select 1 from pg_database where datname = '" + DB + "'")) {
            if (!rs.next()) {
                statement.execute("create database \"" + DB + "\"");
            }
        }
        jdbcUrl = server + DB;
        System.setProperty(PostgresTestDatabase.DIRECT_URL, jdbcUrl);
        System.setProperty("quarkus.datasource.username", user());
        System.setProperty("quarkus.datasource.password", password());
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user(), password());
    }

    private void recordCpu(String run, CpuMeter meter, long messages) {
        meter.seconds().forEach((party, seconds) -> cpu.computeIfAbsent(run, k -> new LinkedHashMap<>())
                .computeIfAbsent(party, k -> new ArrayList<>()).add(Math.round(seconds * 1e5 / messages) / 100.0));
    }

    private void record(String name, double value) {
        samples.computeIfAbsent(name, key -> new ArrayList<>()).add(Math.round(value * 100) / 100.0);
    }

    static double median(List<Double> values) {
        if (values == null || values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String label(double share) {
        return Math.round(share * 100) + "%";
    }

    private static void log(String format, Object... args) {
        System.out.printf("[bench] " + format + "%n", args);
    }

    private static String host() {
        return env("PGHOST", "127.0.0.1");
    }

    private static String port() {
        return env("PGPORT", "5432");
    }

    private static String user() {
        return env("QUARKUS_DATASOURCE_USERNAME", "postgres");
    }

    private static String password() {
        return env("QUARKUS_DATASOURCE_PASSWORD", "");
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static List<Integer> ints(String csv) {
        return Arrays.stream(csv.split(",")).map(String::trim).filter(value -> !value.isEmpty()).map(Integer::valueOf)
                .toList();
    }

    private static List<Double> doubles(String csv) {
        return Arrays.stream(csv.split(",")).map(String::trim).map(Double::valueOf).toList();
    }
}
