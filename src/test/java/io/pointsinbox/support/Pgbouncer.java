package io.pointsinbox.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A PgBouncer in front of the tests' PostgreSQL, one per pool mode and test JVM, started from the machine's
 * {@code pgbouncer} binary (Debian's package; {@code .ci/run} installs it) on a free port. Every database name is
 * forwarded to the same name on the PostgreSQL the tests use.
 */
public final class Pgbouncer {

    public enum Mode {
        SESSION("session", false),
        TRANSACTION("transaction", false),
        /**
         * Transaction mode with {@code server_round_robin = 1}: the pooler hands out its idle sessions in turn rather
         * than the one released last, so consecutive transactions of one client land in different sessions whenever
         * it holds more than one (see {@link #holdSessions}).
         */
        TRANSACTION_ROUND_ROBIN("transaction", true);

        private final String poolMode;
        private final boolean roundRobin;

        Mode(String poolMode, boolean roundRobin) {
            this.poolMode = poolMode;
            this.roundRobin = roundRobin;
        }
    }

    private static final Map<Mode, Integer> PORTS = new EnumMap<>(Mode.class);

    private Pgbouncer() {
    }

    /** Whether the machine has a {@code pgbouncer} binary on its PATH. */
    public static boolean installed() {
        return binary() != null;
    }

    /** Starts (once per JVM and mode) a PgBouncer pooling in {@code mode} and answers its port. */
    public static synchronized int start(Mode mode) {
        Integer running = PORTS.get(mode);
        if (running != null) {
            return running;
        }
        String binary = binary();
        if (binary == null) {
            throw new IllegalStateException("no pgbouncer on the PATH (Debian: apt-get install pgbouncer)");
        }
        java.net.InetSocketAddress database = PostgresTestDatabase.server();
        String host = database.getHostString();
        int pgPort = database.getPort();
        try {
            int port = freePort();
            Path dir = Files.createTempDirectory("pgbouncer-" + mode.name().toLowerCase() + "-");
            String user = PostgresTestDatabase.user();
            Files.writeString(dir.resolve("users.txt"), "\"" + user + "\" \"\"\n");
            Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n",
                    "[databases]",
                    "* = host=" + host + " port=" + pgPort,
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    "listen_port = " + port,
                    "unix_socket_dir =",
                    "auth_type = trust",
                    "auth_file = " + dir.resolve("users.txt"),
                    "pool_mode = " + mode.poolMode,
                    "server_round_robin = " + (mode.roundRobin ? 1 : 0),
                    "max_client_conn = 500",
                    "default_pool_size = 60",
                    "admin_users = " + user,
                    ""));
            dir.toFile().setReadable(true, false);
            dir.toFile().setExecutable(true, false);
            for (String file : List.of("users.txt", "pgbouncer.ini")) {
                dir.resolve(file).toFile().setReadable(true, false);
            }
            List<String> command = new ArrayList<>(List.of(binary));
            if ("root".equals(System.getProperty("user.name"))) {
                command.addAll(List.of("-u", "postgres")); // PgBouncer refuses to run as root
            }
            command.add(dir.resolve("pgbouncer.ini").toString());
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("pgbouncer.log").toFile()).start();
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
            Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
            while (!EmbeddedDatabase.answers("127.0.0.1", port)) {
                if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("pgbouncer did not start: " + Files.readString(
                            dir.resolve("pgbouncer.log")));
                }
                Thread.sleep(50);
            }
            PORTS.put(mode, port);
            return port;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start pgbouncer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Makes the pooler open at least {@code sessions} database sessions to {@code database}, by holding that many
     * transactions at once, then lets them go idle in its pool.
     */
    public static void holdSessions(int port, String database, int sessions) throws java.sql.SQLException {
        List<java.sql.Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < sessions; i++) {
                java.sql.Connection connection = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:"
                        + port + "/" + database + "?prepareThreshold=0", PostgresTestDatabase.user(),
                        PostgresTestDatabase.password());
                held.add(connection);
                connection.setAutoCommit(false);
                try (java.sql.Statement statement = connection.createStatement()) {
                    statement.execute("select 1");
                }
            }
            // Ended, not abandoned: PgBouncer closes a session whose client leaves in the middle of a transaction.
            for (java.sql.Connection connection : held) {
                connection.commit();
            }
        } finally {
            for (java.sql.Connection connection : held) {
                connection.close();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String binary() {
        for (String dir : List.of("/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin")) {
            if (Files.isExecutable(Path.of(dir, "pgbouncer"))) {
                return Path.of(dir, "pgbouncer").toString();
            }
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(":")) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "pgbouncer"))) {
                    return Path.of(dir, "pgbouncer").toString();
                }
            }
        }
        return null;
    }
}
