package io.pointsinbox.bench;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.vertx.amqp.AmqpClient;
import io.vertx.amqp.AmqpClientOptions;
import io.vertx.amqp.AmqpConnection;
import io.vertx.amqp.AmqpMessage;
import io.vertx.amqp.AmqpSender;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * What a user lives through, measured from outside: a packaged service restarted with a backlog on a standalone
 * broker (cold: {@code bench.cold} messages, from the launch to the last commit), the same with a longer backlog
 * whose middle 80 % gives the steady rate (warm), a backlog of ids already applied (duplicates), start to ready on an
 * idle machine, and the resident set after the longer backlog. In the same run pgbench executes the service's
 * transaction at 1, 4 and 8 clients; every party's CPU time per message comes from /proc. Several configurations
 * ({@code bench.variants}) are measured in turn, round after round, so that their ratios come from one run.
 * Run it with {@code bench/run.sh}; results go to {@code target/bench/results.md}.
 */
public final class DrainBenchmark {

    private static final Path OUT = Path.of("target", "bench").toAbsolutePath();
    private static final String QUEUE = "points-granted";
    private static final int USERS = 1_000;
    private static final Pattern RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");

    /** One configuration: a label, a java binary, an application directory, JVM options and environment. */
    record Variant(String label, String java, Path app, List<String> options, Map<String, String> env) {

        static List<Variant> parse(String spec) {
            List<Variant> variants = new ArrayList<>();
            for (String entry : spec.split(";")) {
                String[] parts = entry.split("\\|", -1);
                List<String> options = new ArrayList<>();
                Map<String, String> env = new LinkedHashMap<>();
                for (String option : parts[3].trim().split("\\s+")) {
                    if (option.startsWith("env:")) {
                        String[] kv = option.substring(4).split("=", 2);
                        env.put(kv[0], kv[1]);
                    } else if (!option.isBlank()) {
                        options.add(option);
                    }
                }
                variants.add(new Variant(parts[0].trim(), parts[1].trim(), Path.of(parts[2].trim()).toAbsolutePath(),
                        options, env));
            }
            return variants;
        }
    }

    private final int cold = Integer.getInteger("bench.cold", 20_000);
    private final int warm = Integer.getInteger("bench.warm", 100_000);
    private final int rounds = Integer.getInteger("bench.rounds", 1);
    private final int idleStarts = Integer.getInteger("bench.idle-starts", 5);
    private final int pgbenchSeconds = Integer.getInteger("bench.pgbench-seconds", 10);
    private final List<Integer> pgbenchClients = Arrays.stream(System.getProperty("bench.pgbench-clients", "1,4,8,16")
            .split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(Integer::valueOf).toList();
    private final List<Variant> variants = Variant.parse(System.getProperty("bench.variants"));
    private final Path artemisHome = Path.of(System.getProperty("bench.artemis-home"));
    /** async-profiler's agent library: when set, the cold and warm drains are profiled (their figures then are not). */
    private final String profiler = System.getProperty("bench.profiler", "");
    private final String db = System.getProperty("bench.database", "points_inbox_bench");
    private final String pgHost = env("PGHOST", "127.0.0.1");
    private final String pgPort = env("PGPORT", "5432");
    private final String pgUser = env("PGUSER", "postgres");
    /** Figures by name, a list of samples each (one per round). */
    private final Map<String, List<Double>> figures = new TreeMap<>();
    private final Random random = new Random(42);
    private StandaloneArtemis broker;
    /** Every service launched, so that none outlives a failed run and consumes from the next one's queue. */
    private final List<Process> launched = new ArrayList<>();
    private String jdbcUrl;

    public static void main(String[] args) {
        int status = 0;
        try {
            new DrainBenchmark().run();
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private void run() throws Exception {
        Files.createDirectories(OUT);
        prepareDatabase();
        writePgbenchScript();
        broker = StandaloneArtemis.start(artemisHome, OUT.resolve("broker"), OUT.resolve("broker.log"));
        try {
            // Migrates the schema once: every measured start meets an existing database, as a restarted pod does.
            Service migrate = start(variants.get(0), "migrate");
            migrate.awaitReady(Duration.ofSeconds(120));
            migrate.stop();
            // The broker's JVM warms up too: one backlog through it first, not counted, so that the first
            // configuration measured does not pay for the broker's compilation.
            resetState();
            int warmUp = cold > 0 ? cold : 20_000;
            preload(stream(warmUp, new HashMap<>()));
            drain(variants.get(0), "broker-warm-up", warmUp, false);
            for (int round = 1; round <= rounds; round++) {
                // Each round starts with the next configuration: over as many rounds as there are configurations,
                // each is measured once in every position, so none gains from always following the same one.
                for (int i = 0; i < variants.size(); i++) {
                    Variant variant = variants.get((round - 1 + i) % variants.size());
                    measure(variant, round);
                    pgbench(round);
                }
            }
        } finally {
            launched.stream().filter(Process::isAlive).forEach(Process::destroyForcibly);
            broker.close();
        }
        report();
    }

    private void measure(Variant variant, int round) throws Exception {
        String v = variant.label();
        log("round %d, %s", round, v);
        for (int i = 0; i < idleStarts; i++) {
            Service service = start(variant, "idle-start");
            record(v, "start to ready on an idle machine (s)", service.awaitReady(Duration.ofSeconds(120)));
            service.stop();
        }

        Map<Long, Long> expected = new HashMap<>();
        if (cold > 0) {
            coldAndDuplicates(variant, expected);
        }
        if (warm > 0) {
            resetState();
            expected.clear();
            preload(stream(warm, expected));
            Drain steady = drain(variant, "warm", warm, true);
            verify(expected, warm);
            record(v, "warm: msg/s over the whole drain", warm / steady.seconds);
            record(v, "warm: steady msg/s (10-90 %)", steady.steadyRate);
            steady.cpu.forEach((party, s) -> record(v, "warm: CPU ms/msg (10-90 %), " + party,
                    s * 1000 / (0.8 * warm)));
            record(v, "warm: RSS after the drain (MiB)", steady.rssMiB);
            steady.threads.forEach((group, s) -> record(v, "warm: service CPU ms/msg by thread (10-90 %), " + group,
                    s * 1000 / (0.8 * warm)));
        }
    }

    /** The cold drain of a fresh backlog, then the same ids again as duplicates. */
    private void coldAndDuplicates(Variant variant, Map<Long, Long> expected) throws Exception {
        String v = variant.label();
        resetState();
        List<String> coldStream = stream(cold, expected);
        preload(coldStream);
        Drain fresh = drain(variant, "cold", cold, false);
        verify(expected, cold);
        record(v, "cold: start to ready (s)", fresh.ready);
        record(v, "cold: start to first commit (s)", fresh.firstCommit);
        record(v, "cold: drain, launch to last commit (s)", fresh.seconds);
        record(v, "cold: msg/s (from launch)", cold / fresh.seconds);
        // The issue's own definition of a drain: from the broker's first delivery (here its first commit) to the end.
        record(v, "cold: msg/s (from the first commit)", cold / (fresh.seconds - fresh.firstCommit));
        fresh.cpu.forEach((party, s) -> record(v, "cold: CPU ms/msg, " + party, s * 1000 / cold));
        fresh.threads.forEach((group, s) -> record(v, "cold: service CPU s by thread, " + group, s));

        preload(coldStream);
        Drain duplicates = drain(variant, "duplicates", cold, false);
        verify(expected, cold);
        record(v, "duplicates: drain, launch to last ack (s)", duplicates.seconds);
        record(v, "duplicates: msg/s (from launch)", cold / duplicates.seconds);
        duplicates.cpu.forEach((party, s) -> record(v, "duplicates: CPU ms/msg, " + party, s * 1000 / cold));
    }

    /** A drain: launch to last commit, the steady window's rate and CPU, and what the process holds after it. */
    private record Drain(double seconds, double ready, double firstCommit, double steadyRate,
            Map<String, Double> cpu, double rssMiB, Map<String, Double> threads) {
    }

    /**
     * Starts the service on a preloaded queue and waits until the queue is empty. For a steady measurement the CPU is
     * counted between 10 % and 90 % of the backlog; otherwise from the launch to the end.
     */
    private Drain drain(Variant variant, String name, int messages, boolean steady) throws Exception {
        long launch = System.nanoTime();
        Service service = start(variant, name);
        CpuMeter meter = steady ? null : CpuMeter.start(parties(service));
        double ready = -1;
        double first = -1;
        long windowStart = 0;
        long windowEnd = 0;
        Map<String, Double> threadsAtStart = Map.of();
        Map<String, Double> threadsInWindow = Map.of();
        long deadline = launch + Duration.ofMinutes(20).toNanos();
        while (true) {
            long depth = broker.depth(QUEUE);
            long now = System.nanoTime();
            if (first < 0 && depth < messages) {
                first = (now - launch) / 1e9;
            }
            if (steady && windowStart == 0 && depth <= messages * 0.9) {
                windowStart = now;
                meter = CpuMeter.start(parties(service));
                threadsAtStart = service.threadCpu();
                profile(variant, service, "start,event=cpu,interval=1ms");
            }
            if (steady && windowEnd == 0 && depth <= messages * 0.1) {
                windowEnd = now;
                Map<String, Double> cpu = meter.seconds();
                meter = null;
                threadsInWindow = new TreeMap<>();
                for (Map.Entry<String, Double> group : service.threadCpu().entrySet()) {
                    threadsInWindow.put(group.getKey(), group.getValue() - threadsAtStart.getOrDefault(group.getKey(),
                            0.0));
                }
                profile(variant, service, "stop,file=" + profileFile(variant, name, "collapsed"));
                while (broker.depth(QUEUE) > 0) {
                    Thread.sleep(20);
                }
                double seconds = (System.nanoTime() - launch) / 1e9;
                double rss = service.rssMiB();
                service.stop();
                return new Drain(seconds, ready, first, 0.8 * messages / ((windowEnd - windowStart) / 1e9), cpu, rss,
                        threadsInWindow);
            }
            if (!steady && depth == 0) {
                Map<String, Double> cpu = meter.seconds();
                double seconds = (now - launch) / 1e9;
                double rss = service.rssMiB();
                Map<String, Double> threads = service.threadCpu();
                service.stop();
                return new Drain(seconds, ready, first, Double.NaN, cpu, rss, threads);
            }
            if (ready < 0 && service.ready()) {
                ready = (System.nanoTime() - launch) / 1e9;
            }
            if (!service.alive() || now > deadline) {
                service.stop();
                throw new IllegalStateException(name + ": " + variant.label() + " did not drain the queue (depth "
                        + depth + "); see " + service.log);
            }
            Thread.sleep(ready < 0 ? 10 : 50);
        }
    }

    /**
     * Sends a command to async-profiler in the service ({@code bench.profiler}), loading it into the running JVM as
     * {@code asprof} would: the steady window of a warm drain is profiled from its first to its last message.
     */
    private void profile(Variant variant, Service service, String command) throws Exception {
        if (profiler.isEmpty()) {
            return;
        }
        Path jcmd = Path.of(variant.java()).toRealPath().resolveSibling("jcmd");
        // Quoted: jcmd would otherwise read each key=value of the agent's options as an option of its own.
        Process attach = new ProcessBuilder(jcmd.toString(), String.valueOf(service.process.pid()),
                "JVMTI.agent_load", profiler, "'" + command + "'").redirectErrorStream(true).start();
        String output = new String(attach.getInputStream().readAllBytes());
        Files.writeString(OUT.resolve("profiler.log"), output, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        if (attach.waitFor() != 0 || !output.contains("return code: 0")) {
            throw new IllegalStateException("the profiler refused '" + command + "': " + output.strip());
        }
    }

    private Path profileFile(Variant variant, String drain, String format) throws IOException {
        Path dir = Files.createDirectories(OUT.resolve("profiles"));
        return dir.resolve(variant.label().replaceAll("[^A-Za-z0-9]+", "-") + "-" + drain + "." + format);
    }

    private Map<String, Long> parties(Service service) {
        return Map.of("service", service.process.pid(), "broker", broker.pid());
    }

    /** Fresh grants: random users among {@value #USERS}, amounts 1 to 100; the expected balance per user is added up. */
    private List<String> stream(int messages, Map<Long, Long> expected) {
        List<String> bodies = new ArrayList<>(messages);
        for (int i = 0; i < messages; i++) {
            long user = 1 + random.nextInt(USERS);
            long amount = 1 + random.nextInt(100);
            expected.merge(user, amount, Long::sum);
            bodies.add("{\"messageId\":\"" + UUID.randomUUID() + "\",\"type\":\"PointsGranted.v1\",\"payload\":"
                    + "{\"userId\":" + user + ",\"amount\":" + amount + "}}");
        }
        return bodies;
    }

    /** Sends durable messages with up to 500 unconfirmed at a time, and returns once the broker has them all. */
    private void preload(List<String> bodies) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            AmqpClient client = AmqpClient.create(vertx, new AmqpClientOptions().setHost("127.0.0.1")
                    .setPort(StandaloneArtemis.AMQP_PORT).setUsername("points").setPassword("points"));
            AmqpConnection connection = await(client.connect());
            AmqpSender sender = await(connection.createSender(QUEUE));
            Semaphore window = new Semaphore(500);
            for (String body : bodies) {
                window.acquire();
                sender.sendWithAck(AmqpMessage.create().withBody(body).durable(true).build())
                        .onComplete(done -> window.release());
            }
            if (!window.tryAcquire(500, 120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the broker did not confirm the preload");
            }
            await(connection.close());
        } finally {
            await(vertx.close());
        }
        long depth = broker.depth(QUEUE);
        if (depth != bodies.size()) {
            throw new IllegalStateException("preloaded " + bodies.size() + " messages, the queue holds " + depth);
        }
    }

    private void verify(Map<Long, Long> expected, int messages) throws SQLException {
        Map<Long, Long> balances = new HashMap<>();
        try (Connection connection = DriverManager.getConnection(jdbcUrl, pgUser, "");
                Statement statement = connection.createStatement()) {
            try (ResultSet rs = statement.executeQuery("select user_id, balance from user_points")) {
                while (rs.next()) {
                    balances.put(rs.getLong(1), rs.getLong(2));
                }
            }
            try (ResultSet rs = statement.executeQuery("select count(*) from inbox_message")) {
                rs.next();
                if (rs.getLong(1) != messages) {
                    throw new IllegalStateException("expected " + messages + " inbox rows, found " + rs.getLong(1));
                }
            }
        }
        if (!balances.equals(expected)) {
            throw new IllegalStateException("balances differ from what exactly-once predicts");
        }
    }

    private void resetState() throws Exception {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, pgUser, "");
                Statement statement = connection.createStatement()) {
            statement.execute("truncate table inbox_message, user_points, point_grant");
            statement.execute("vacuum analyze inbox_message, user_points, point_grant");
            statement.execute("checkpoint");
        }
        broker.purge(QUEUE);
        broker.purge("DLQ");
    }

    private void pgbench(int round) throws Exception {
        for (int repeat = 0; repeat < 2; repeat++) {
            for (int clients : pgbenchClients) {
                Map<String, Long> none = Map.of();
                CpuMeter meter = CpuMeter.start(none);
                Path log = OUT.resolve("pgbench.log");
                Process pgbench = new ProcessBuilder("pgbench", "-n", "-M", "prepared", "-c", String.valueOf(clients),
                        "-j", String.valueOf(Math.min(clients, 2)), "-T", String.valueOf(pgbenchSeconds), "-f",
                        OUT.resolve("transaction.sql").toString(), "-h", pgHost, "-p", pgPort, "-U", pgUser, db)
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
                if (pgbench.waitFor() != 0) {
                    throw new IllegalStateException("pgbench failed; see " + log);
                }
                Map<String, Double> cpu = meter.seconds();
                String output = Files.readString(log);
                Matcher tps = Pattern.compile("tps = ([0-9.]+)").matcher(output);
                Matcher transactions = Pattern.compile("number of transactions actually processed: (\\d+)")
                        .matcher(output);
                double rate = 0;
                long count = 0;
                while (tps.find()) {
                    rate = Double.parseDouble(tps.group(1));
                }
                while (transactions.find()) {
                    count = Long.parseLong(transactions.group(1));
                }
                Files.delete(log);
                record("pgbench", "tx/s at " + clients + " clients", rate);
                record("pgbench", "CPU ms/tx at " + clients + " clients, postgres",
                        cpu.get(CpuMeter.POSTGRES) * 1000 / count);
                record("pgbench", "CPU ms/tx at " + clients + " clients, pgbench client",
                        cpu.get(CpuMeter.CHILDREN) * 1000 / count);
            }
        }
        log("pgbench round %d done", round);
    }

    private void writePgbenchScript() throws IOException {
        // The transaction the service runs per fresh message: claim, credit, record; same columns and unique keys.
        Files.writeString(OUT.resolve("transaction.sql"), """
                \\set user random(1, 1000)
                \\set amount random(1, 100)
                BEGIN;
                INSERT INTO inbox_message (id, consumer, message_id, message_type, payload_json, payload_hash,
                    outcome, received_at, processed_at)
                    VALUES (nextval('inbox_message_seq'), 'pgbench', gen_random_uuid(), 'PointsGranted.v1',
                    '{"userId":1,"amount":10}', md5(random()::text), 'PROCESSED', now(), now());
                INSERT INTO user_points (consumer, user_id, balance) VALUES ('pgbench', :user, :amount)
                    ON CONFLICT (consumer, user_id) DO UPDATE SET balance = user_points.balance + excluded.balance;
                INSERT INTO point_grant (id, consumer, user_id, amount, kind, message_id, granted_at)
                    VALUES (nextval('point_grant_seq'), 'pgbench', :user, :amount, 'GRANT', gen_random_uuid(), now());
                END;
                """.replaceAll("\n    +", " "));
    }

    private void prepareDatabase() throws SQLException {
        String server = "jdbc:postgresql://" + pgHost + ":" + pgPort + "/";
        try (Connection connection = DriverManager.getConnection(server + "postgres", pgUser, "");
                Statement statement = connection.createStatement()) {
            statement.execute("drop database if exists \"" + db + "\" with (force)");
            statement.execute("create database \"" + db + "\"");
        }
        jdbcUrl = server + db;
    }

    /** The packaged service as a process of its own, started as the variant says. */
    private final class Service {
        final Process process;
        final Path log;
        final int port;
        final long launchedNanos;

        Service(Process process, Path log, int port, long launchedNanos) {
            this.process = process;
            this.log = log;
            this.port = port;
            this.launchedNanos = launchedNanos;
        }

        /**
         * Seconds from the launch to the first 200 of the readiness check. Timed from just before the process was
         * started: the JDK's own start instant of a process adds its boot time in whole seconds (up to a second
         * early).
         */
        double awaitReady(Duration atMost) throws Exception {
            long deadline = launchedNanos + atMost.toNanos();
            while (!ready()) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the service did not become ready; see " + log);
                }
                Thread.sleep(10);
            }
            return (System.nanoTime() - launchedNanos) / 1e9;
        }

        boolean ready() {
            try {
                HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port
                        + "/q/health/ready").toURL().openConnection();
                connection.setConnectTimeout(500);
                connection.setReadTimeout(2000);
                return connection.getResponseCode() == 200;
            } catch (IOException e) {
                return false;
            }
        }

        boolean alive() {
            return process.isAlive();
        }

        /** CPU seconds of the service's live threads since its launch, by kind of thread. */
        Map<String, Double> threadCpu() throws IOException {
            Map<String, Double> byGroup = new TreeMap<>();
            try (var tasks = Files.list(Path.of("/proc", String.valueOf(process.pid()), "task"))) {
                for (Path task : tasks.toList()) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        double seconds = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
                        byGroup.merge(group(name), seconds, Double::sum);
                    } catch (IOException | RuntimeException gone) {
                        // A thread that ended between the listing and the read.
                    }
                }
            }
            return byGroup;
        }

        private static String group(String thread) {
            if (thread.startsWith("C2 ") || thread.startsWith("C1 ")) {
                return "JIT compilers";
            }
            if (thread.startsWith("GC ") || thread.startsWith("G1 ") || thread.startsWith("VM Thread")) {
                return "GC and VM";
            }
            // Virtual threads' carriers (JDK 21+), or Quarkus's worker pool where the JDK has no virtual threads.
            if (thread.startsWith("ForkJoinPool") || thread.startsWith("executor-thread")) {
                return "message workers";
            }
            if (thread.startsWith("vert.x-eventloo")) {
                return "event loops";
            }
            if (thread.equals("java") || thread.startsWith("main") || thread.startsWith("JPA Startup")) {
                return "start-up (main, JPA)";
            }
            return "other";
        }

        double rssMiB() throws IOException {
            Matcher rss = RSS.matcher(Files.readString(Path.of("/proc", String.valueOf(process.pid()), "status")));
            return rss.find() ? Long.parseLong(rss.group(1)) / 1024.0 : Double.NaN;
        }

        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    private Service start(Variant variant, String name) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> command = new ArrayList<>();
        command.add(variant.java());
        command.addAll(variant.options());
        if (!profiler.isEmpty() && name.equals("cold")) {
            // From the launch: start-up, class loading and compilation are part of what a cold drain costs.
            command.add("-agentpath:" + profiler + "=start,event=cpu,interval=1ms,file="
                    + profileFile(variant, name, "collapsed"));
        } else if (!profiler.isEmpty() && name.equals("warm")) {
            // Loaded at the launch and started later: an agent attached to a running JVM deoptimizes its compiled
            // code, and the window would measure the recompilation.
            command.add("-agentpath:" + profiler);
        }
        command.add("-jar");
        command.add(variant.app().resolve("quarkus-run.jar").toString());
        Path log = OUT.resolve("logs").resolve(variant.label().replaceAll("[^A-Za-z0-9]+", "-") + "-" + name + ".log");
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        // From its own directory, as a container runs it: an AOT cache records the paths it was trained with.
        builder.directory(variant.app().toFile());
        Map<String, String> env = builder.environment();
        env.put("AMQP_HOST", "127.0.0.1");
        env.put("AMQP_PORT", String.valueOf(StandaloneArtemis.AMQP_PORT));
        env.put("AMQP_USERNAME", "points");
        env.put("AMQP_PASSWORD", "points");
        env.put("QUARKUS_DATASOURCE_JDBC_URL", jdbcUrl);
        env.put("QUARKUS_DATASOURCE_USERNAME", pgUser);
        env.put("QUARKUS_DATASOURCE_PASSWORD", "");
        env.put("POINTS_JWT_PUBLIC_KEY_LOCATION", Path.of("src/test/resources/jwt/publicKey.pem").toAbsolutePath()
                .toString());
        env.put("PORT", String.valueOf(port));
        env.putAll(variant.env());
        long launchedNanos = System.nanoTime();
        Process process = builder.start();
        launched.add(process);
        return new Service(process, log, port, launchedNanos);
    }

    private void report() throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# points-inbox drain benchmark\n\n").append(LocalDate.now()).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores; broker: Artemis (standalone, ")
                .append(artemisHome.getFileName()).append(", defaults of `artemis create`); ").append(rounds)
                .append(" round(s), medians; cold ").append(cold).append(", warm ").append(warm)
                .append(" messages.\n\n");
        md.append("| configuration | JVM |\n|---|---|\n");
        for (Variant variant : variants) {
            md.append("| ").append(variant.label()).append(" | `").append(variant.java()).append(' ')
                    .append(String.join(" ", variant.options())).append("` ").append(variant.env()).append(" |\n");
        }
        List<String> columns = new ArrayList<>();
        variants.forEach(variant -> columns.add(variant.label()));
        md.append("\n| figure | ").append(String.join(" | ", columns)).append(" |\n|---|")
                .append("---|".repeat(columns.size())).append('\n');
        TreeMap<String, Map<String, Double>> rows = new TreeMap<>();
        figures.forEach((key, samples) -> {
            String[] parts = key.split("\n", 2);
            rows.computeIfAbsent(parts[1], k -> new LinkedHashMap<>()).put(parts[0], median(samples));
        });
        rows.forEach((figure, byVariant) -> {
            if (byVariant.containsKey("pgbench")) {
                return;
            }
            md.append("| ").append(figure);
            for (String column : columns) {
                md.append(String.format(" | %.3f", byVariant.getOrDefault(column, Double.NaN)));
            }
            md.append(" |\n");
        });
        md.append("\n| pgbench (same transaction, -M prepared, two runs per round) | median |\n|---|---|\n");
        rows.forEach((figure, byVariant) -> {
            if (byVariant.containsKey("pgbench")) {
                md.append(String.format("| %s | %.3f |%n", figure, byVariant.get("pgbench")));
            }
        });
        md.append("\n| ratio | ").append(String.join(" | ", columns)).append(" |\n|---|")
                .append("---|".repeat(columns.size())).append('\n');
        double pg4 = median(figures.get("pgbench\ntx/s at 4 clients"));
        ratioRow(md, columns, "cold drain ÷ pgbench at 4 clients", "cold: msg/s (from launch)", pg4);
        ratioRow(md, columns, "cold drain from the first commit ÷ pgbench at 4 clients",
                "cold: msg/s (from the first commit)", pg4);
        // Each variant's concurrency once: finding a JDK's default runs its java.
        Map<Variant, Integer> clientsOf = new HashMap<>();
        variants.forEach(variant -> clientsOf.put(variant, concurrency(variant)));
        md.append("| warm steady ÷ pgbench at the service's concurrency |");
        for (Variant variant : variants) {
            int clients = clientsOf.get(variant);
            double rate = median(figures.get(variant.label() + "\nwarm: steady msg/s (10-90 %)"));
            md.append(String.format(" %.2f (%d) |", rate / median(figures.get("pgbench\ntx/s at " + clients
                    + " clients")), clients));
        }
        md.append('\n');
        // CPU per message in ms moves with the machine's speed from run to run; against PostgreSQL's own CPU per
        // pgbench transaction, measured in the same run, it does not.
        md.append("| warm service CPU ÷ PostgreSQL CPU per pgbench transaction (same concurrency) |");
        for (Variant variant : variants) {
            int clients = clientsOf.get(variant);
            double service = median(figures.get(variant.label() + "\nwarm: CPU ms/msg (10-90 %), service"));
            md.append(String.format(" %.2f |", service / median(figures.get("pgbench\nCPU ms/tx at " + clients
                    + " clients, postgres"))));
        }
        md.append('\n');
        md.append("| duplicates ÷ fresh (cold drains) |");
        for (String column : columns) {
            md.append(String.format(" %.2f |", median(figures.get(column + "\nduplicates: msg/s (from launch)"))
                    / median(figures.get(column + "\ncold: msg/s (from launch)"))));
        }
        md.append('\n');
        Files.writeString(OUT.resolve("results.md"), md);
        System.out.println(md);
        System.out.println("Written: " + OUT.resolve("results.md"));
    }

    /** Deliveries a variant processes at once: its POINTS_CONCURRENCY, else the default for its JDK. */
    private static int concurrency(Variant variant) {
        String set = variant.env().get("POINTS_CONCURRENCY");
        if (set != null) {
            return Integer.parseInt(set);
        }
        try {
            Process version = new ProcessBuilder(variant.java(), "-version").redirectErrorStream(true).start();
            Matcher feature = Pattern.compile("version \"(\\d+)").matcher(new String(version.getInputStream()
                    .readAllBytes()));
            return feature.find() && Integer.parseInt(feature.group(1)) < 21 ? 8 : 16;
        } catch (IOException e) {
            return 16;
        }
    }

    private void ratioRow(StringBuilder md, List<String> columns, String name, String figure, double base) {
        md.append("| ").append(name).append(" |");
        for (String column : columns) {
            md.append(String.format(" %.2f |", median(figures.get(column + "\n" + figure)) / base));
        }
        md.append('\n');
    }

    private void record(String variant, String figure, double value) {
        figures.computeIfAbsent(variant + "\n" + figure, k -> new ArrayList<>()).add(value);
        log("%s: %s = %.3f", variant, figure, value);
    }

    static double median(List<Double> values) {
        if (values == null || values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static void log(String format, Object... args) {
        System.out.printf("[bench] " + format + "%n", args);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
