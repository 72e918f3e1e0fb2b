package io.pointsinbox.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Several independent AMQP producers, released together, each sending its own list of bodies. */
public final class ParallelSenders {

    private ParallelSenders() {
    }

    public static void send(List<List<String>> perSender) throws Exception {
        CyclicBarrier start = new CyclicBarrier(perSender.size());
        ExecutorService pool = Executors.newFixedThreadPool(perSender.size());
        try {
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (List<String> bodies : perSender) {
                running.add(CompletableFuture.runAsync(() -> {
                    try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
                        start.await(10, TimeUnit.SECONDS);
                        sender.sendAll(bodies);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }
}
