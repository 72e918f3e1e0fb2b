package io.pointsinbox.support;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Several independent producers, released together, each sending its own list of bodies: AMQP connections, or
 * connections on Artemis's CORE protocol as JMS applications open.
 */
public final class ParallelSenders {

    private ParallelSenders() {
    }

    /** Every sender sends all the bodies, each in its own random order: the same messages from several producers. */
    public static void sameMessagesFromEach(List<String> bodies, int senders) throws Exception {
        send(eachInItsOwnOrder(bodies, senders));
    }

    /** As {@link #sameMessagesFromEach}, each producer a CORE connection sending every body with {@code send}. */
    public static void sameMessagesFromEachOverCore(List<String> bodies, int senders,
            BiConsumer<CoreTestClient, String> send) throws Exception {
        sendEach(eachInItsOwnOrder(bodies, senders), CoreTestClient::new, send);
    }

    private static List<List<String>> eachInItsOwnOrder(List<String> bodies, int senders) {
        List<List<String>> perSender = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            List<String> order = new ArrayList<>(bodies);
            Collections.shuffle(order);
            perSender.add(order);
        }
        return perSender;
    }

    /** The bodies split into consecutive shares, one per sender. */
    public static void split(List<String> bodies, int senders) throws Exception {
        List<List<String>> perSender = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            perSender.add(bodies.subList(s * bodies.size() / senders, (s + 1) * bodies.size() / senders));
        }
        send(perSender);
    }

    public static void send(List<List<String>> perSender) throws Exception {
        sendEach(perSender, AmqpTestClient::toInbox, AmqpTestClient::sendText);
    }

    /** Messages built section by section, split into consecutive shares, one per sender. */
    public static void splitMessages(List<org.apache.qpid.proton.message.Message> messages, int senders)
            throws Exception {
        List<List<org.apache.qpid.proton.message.Message>> perSender = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            perSender.add(messages.subList(s * messages.size() / senders, (s + 1) * messages.size() / senders));
        }
        sendEach(perSender, AmqpTestClient::toInbox, AmqpTestClient::send);
    }

    private static <C extends AutoCloseable, T> void sendEach(List<List<T>> perSender, Supplier<C> connect,
            BiConsumer<C, T> send) throws Exception {
        CyclicBarrier start = new CyclicBarrier(perSender.size());
        ExecutorService pool = Executors.newFixedThreadPool(perSender.size());
        try {
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (List<T> items : perSender) {
                running.add(CompletableFuture.runAsync(() -> {
                    try (C sender = connect.get()) {
                        start.await(10, TimeUnit.SECONDS);
                        items.forEach(item -> send.accept(sender, item));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            // At least 200 messages a second: a benchmark preloads 120,000 while the application drains them.
            long total = perSender.stream().mapToLong(List::size).sum();
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new))
                    .get(Math.max(120, total / 200), TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }
}
