package io.pointsinbox.support;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The packaged application ({@code target/quarkus-app}) as a separate process that a test can kill. */
public final class AppProcess {

    private static final List<Process> ORPHANS = new java.util.concurrent.CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ORPHANS.stream().filter(Process::isAlive)
                .forEach(Process::destroyForcibly)));
    }

    private final Process process;
    private final int port;

    private AppProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** The environment a packaged application needs to reach a test broker and a database. */
    public static Map<String, String> environment(Map<String, String> amqp, String jdbcUrl, String user,
            String password) {
        Map<String, String> env = new java.util.HashMap<>();
        env.put("AMQP_HOST", amqp.get("amqp-host"));
        env.put("AMQP_PORT", amqp.get("amqp-port"));
        env.put("QUARKUS_DATASOURCE_JDBC_URL", jdbcUrl);
        env.put("QUARKUS_DATASOURCE_USERNAME", user);
        env.put("QUARKUS_DATASOURCE_PASSWORD", password);
        env.put("POINTS_JWT_PUBLIC_KEY_LOCATION",
                Path.of("src/test/resources/jwt/publicKey.pem").toAbsolutePath().toString());
        return env;
    }

    /** Starts the packaged application and waits until it is ready. */
    public static AppProcess startReady(Map<String, String> env, Path log) throws IOException {
        AppProcess app = start(env, log);
        org.awaitility.Awaitility.await(log.getFileName() + " ready").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).until(app::ready);
        return app;
    }

    /** Empties a directory of per-run application logs (they are appended to). */
    public static void clearLogs(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    public static AppProcess start(Map<String, String> env, Path log) throws IOException {
        return start(ProcessHandle.current().info().command().orElse("java"), List.of(), env, log);
    }

    /** Starts the fast-jar with a given java binary and extra JVM options. */
    public static AppProcess start(String java, List<String> jvmOptions, Map<String, String> env, Path log)
            throws IOException {
        return start(Path.of("target", "quarkus-app"), java, jvmOptions, env, log);
    }

    /** Starts the fast-jar (or aot-jar) found in a given application directory. */
    public static AppProcess start(Path appDir, String java, List<String> jvmOptions, Map<String, String> env,
            Path log) throws IOException {
        Path jar = appDir.resolve("quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: run the package phase first (./mvnw verify)");
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xmx256m");
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toAbsolutePath().toFile()));
        // From its own directory, as a container runs it: an AOT cache records the class path it was trained with.
        builder.directory(appDir.toAbsolutePath().toFile());
        builder.environment().putAll(env);
        if (!env.containsKey("PORT")) { // a test of the PORT setting itself gives its own
            builder.environment().put("QUARKUS_HTTP_PORT", String.valueOf(port));
        }
        Files.createDirectories(log.getParent());
        Process process = builder.start();
        // A failed test must not leave a replica running against the shared test database.
        ORPHANS.add(process);
        return new AppProcess(process, port);
    }

    public int port() {
        return port;
    }

    public boolean ready() {
        return status("/q/health/ready") == 200;
    }

    public int status(String path) {
        return status(path, null);
    }

    public int status(String path, String bearerToken) {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                    .openConnection();
            if (bearerToken != null) {
                connection.setRequestProperty("Authorization", "Bearer " + bearerToken);
            }
            connection.setConnectTimeout(1000);
            connection.setReadTimeout(3000);
            return connection.getResponseCode();
        } catch (IOException e) {
            return -1;
        }
    }

    /** A series from this application's /q/metrics (see {@link Metrics#find}); NaN when not published. */
    public double metric(String name, String... labels) throws IOException {
        return Metrics.find(get("/q/metrics"), name, labels);
    }

    public String get(String path) throws IOException {
        return new String(URI.create("http://127.0.0.1:" + port + path).toURL().openStream().readAllBytes());
    }

    /** The body of a GET whatever its status code (a 503 of a health check included). */
    public String body(String path) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                .openConnection();
        connection.setConnectTimeout(1000);
        connection.setReadTimeout(3000);
        try (java.io.InputStream in = connection.getResponseCode() >= 400 ? connection.getErrorStream()
                : connection.getInputStream()) {
            return in == null ? "" : new String(in.readAllBytes());
        } finally {
            connection.disconnect();
        }
    }

    public long pid() {
        return process.pid();
    }

    /** Resident set size of the process in MiB, from /proc. */
    public long rssMiB() throws IOException {
        return Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status")).stream()
                .filter(line -> line.startsWith("VmRSS:")).findFirst()
                .map(line -> Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024).orElse(-1L);
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself; its exit code, or empty if it is still running after {@code atMost}. */
    public java.util.OptionalInt awaitExit(Duration atMost) throws InterruptedException {
        return process.waitFor(atMost.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                ? java.util.OptionalInt.of(process.exitValue())
                : java.util.OptionalInt.empty();
    }

    /** SIGKILL: no shutdown hook, no acknowledgement, nothing flushed. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM: the graceful path; returns how long the process took to exit. */
    public Duration terminate(Duration atMost) throws InterruptedException {
        long start = System.nanoTime();
        process.destroy();
        if (!process.waitFor(atMost.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the application did not stop within " + atMost);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
