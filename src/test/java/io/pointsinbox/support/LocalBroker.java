package io.pointsinbox.support;

import java.nio.file.Path;

/** Runs the test broker as a standalone process for local runs: {@code bin/run-local} starts it. */
public final class LocalBroker {

    private LocalBroker() {
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 5673;
        Path dataDir = Path.of(args.length > 1 ? args[1] : "target/local-broker");
        int attempts = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        var broker = EmbeddedArtemis.start(port, dataDir, attempts);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                broker.stop();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        System.out.printf("Artemis AMQP broker ready on 127.0.0.1:%d (address %s, dead letters %s, %d attempts)%n",
                port, EmbeddedArtemis.ADDRESS, EmbeddedArtemis.DEAD_LETTER, attempts);
        Thread.currentThread().join();
    }
}
