package io.pointsinbox.support;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.vertx.amqp.AmqpClient;
import io.vertx.amqp.AmqpClientOptions;
import io.vertx.amqp.AmqpConnection;
import io.vertx.amqp.AmqpMessage;
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
