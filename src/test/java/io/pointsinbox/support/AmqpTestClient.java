package io.pointsinbox.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

import io.vertx.amqp.AmqpClient;
import io.vertx.amqp.AmqpClientOptions;
import io.vertx.amqp.AmqpConnection;
import io.vertx.amqp.AmqpMessage;
import io.vertx.amqp.AmqpReceiver;
import io.vertx.amqp.AmqpReceiverOptions;
import io.vertx.amqp.AmqpSender;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/** A real AMQP 1.0 sender for tests: each instance is one connection, like one independent producer. */
public final class AmqpTestClient implements AutoCloseable {

    private static final Vertx VERTX = Vertx.vertx();

    private final AmqpClient client;
    private final AmqpConnection connection;
    private final AmqpSender sender;

    public AmqpTestClient(String address) {
        this("127.0.0.1", ArtemisTestResource.port(), address);
    }

    public AmqpTestClient(String host, int port, String address) {
        client = AmqpClient.create(VERTX, new AmqpClientOptions().setHost(host).setPort(port));
        connection = await(client.connect());
        sender = await(connection.createSender(address));
    }

    public static AmqpTestClient toInbox() {
        return new AmqpTestClient(ArtemisTestResource.ADDRESS);
    }

    /** The canonical envelope, as a JSON string. */
    public static String grant(UUID messageId, long userId, long amount) {
        return "{\"messageId\":\"" + messageId + "\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":" + userId
                + ",\"amount\":" + amount + "}}";
    }

    /** A redemption envelope, as a JSON string. */
    public static String redeem(UUID messageId, long userId, long amount) {
        return "{\"messageId\":\"" + messageId + "\",\"type\":\"PointsRedeemed.v1\",\"payload\":{\"userId\":"
                + userId + ",\"amount\":" + amount + "}}";
    }

    /** A text gzip-compressed, as a sender that compresses its bodies would send it. */
    public static byte[] gzip(String text) {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(compressed)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return compressed.toByteArray();
    }

    /** Sends a JSON text body as an AMQP string value, persistent, and waits for the broker to accept it. */
    public void sendText(String body) {
        send(AmqpMessage.create().withBody(body).durable(true).build());
    }

    /** Sends a body as a data section with content-type application/json. */
    public void sendJsonData(String body, String amqpMessageId) {
        var builder = AmqpMessage.create().withBufferAsBody(Buffer.buffer(body)).contentType("application/json")
                .durable(true);
        if (amqpMessageId != null) {
            builder.id(amqpMessageId);
        }
        send(builder.build());
    }

    public void send(AmqpMessage message) {
        await(sender.sendWithAck(message));
    }

    /** Sends a message built section by section, exactly as given, and waits for the broker to accept it. */
    public void send(org.apache.qpid.proton.message.Message message) {
        send(AmqpMessage.create(message).build());
    }

    /**
     * Takes up to {@code expected} messages off a queue as an AMQP consumer would (each accepted), waiting at most
     * {@code timeout} for them, and returns them as received, section by section.
     */
    public static List<org.apache.qpid.proton.message.Message> take(String queue, int expected, Duration timeout) {
        AmqpClient client = AmqpClient.create(VERTX, new AmqpClientOptions().setHost("127.0.0.1")
                .setPort(ArtemisTestResource.port()));
        List<org.apache.qpid.proton.message.Message> received = new CopyOnWriteArrayList<>();
        try {
            AmqpConnection connection = await(client.connect());
            AmqpReceiver receiver = await(connection.createReceiver(queue,
                    new AmqpReceiverOptions().setMaxBufferedMessages(Math.max(1, expected))));
            receiver.handler(message -> received.add(message.unwrap()));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (received.size() < expected && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            await(receiver.close());
            await(connection.close());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            await(client.close());
        }
        return List.copyOf(received);
    }

    public void sendAll(List<String> bodies) {
        bodies.forEach(this::sendText);
    }

    @Override
    public void close() {
        await(connection.close());
        await(client.close());
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("AMQP test client operation failed", e);
        }
    }
}
