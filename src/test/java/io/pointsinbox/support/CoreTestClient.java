package io.pointsinbox.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.Message;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.api.core.client.ActiveMQClient;
import org.apache.activemq.artemis.api.core.client.ClientConsumer;
import org.apache.activemq.artemis.api.core.client.ClientMessage;
import org.apache.activemq.artemis.api.core.client.ClientProducer;
import org.apache.activemq.artemis.api.core.client.ClientSession;
import org.apache.activemq.artemis.api.core.client.ClientSessionFactory;
import org.apache.activemq.artemis.api.core.client.ServerLocator;
import org.apache.activemq.artemis.reader.TextMessageUtil;

/**
 * A sender and reader speaking Artemis's own CORE protocol, as a JMS application on the Artemis client (or the
 * {@code artemis producer} command) does: a JMS {@code TextMessage} is a core message of the text type whose body is
 * written by {@link TextMessageUtil}, a {@code BytesMessage} one of the bytes type, and the JMS message id is the
 * message's user id. The broker converts these for the service's AMQP link.
 */
public final class CoreTestClient implements AutoCloseable {

    private final ServerLocator locator;
    private final ClientSessionFactory factory;
    private final ClientSession session;

    public CoreTestClient() {
        try {
            locator = ActiveMQClient.createServerLocator("tcp://127.0.0.1:" + ArtemisTestResource.port());
            factory = locator.createSessionFactory();
            session = factory.createSession();
            session.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot open a CORE session to the test broker", e);
        }
    }

    /** A JMS {@code TextMessage}: persistent, with a JMS message id ({@code ID:<uuid>}) and string properties. */
    public void sendText(String address, String text, Map<String, String> properties) {
        ClientMessage message = session.createMessage(Message.TEXT_TYPE, true);
        TextMessageUtil.writeBodyText(message.getBodyBuffer(), text == null ? null : SimpleString.of(text));
        send(address, message, properties);
    }

    /** A JMS {@code BytesMessage} holding the bytes as they are. */
    public void sendBytes(String address, byte[] bytes, Map<String, String> properties) {
        ClientMessage message = session.createMessage(Message.BYTES_TYPE, true);
        message.getBodyBuffer().writeBytes(bytes);
        send(address, message, properties);
    }

    private void send(String address, ClientMessage message, Map<String, String> properties) {
        // What the JMS client does on every send: a fresh id of its own, which the broker hands to AMQP consumers
        // as the message-id "ID:<uuid>".
        message.setUserID(org.apache.activemq.artemis.utils.UUIDGenerator.getInstance().generateUUID());
        properties.forEach(message::putStringProperty);
        try (ClientProducer producer = session.createProducer(address)) {
            producer.send(message);
        } catch (ActiveMQException e) {
            throw new IllegalStateException("the broker refused a CORE message", e);
        }
    }

    /** Takes every message from a queue, as a JMS consumer would read it. */
    public List<Received> drain(String queue) {
        List<Received> received = new ArrayList<>();
        try (ClientConsumer consumer = session.createConsumer(queue)) {
            ClientMessage message;
            while ((message = consumer.receive(2_000)) != null) {
                message.acknowledge();
                received.add(Received.of(message));
            }
        } catch (ActiveMQException e) {
            throw new IllegalStateException("cannot read " + queue + " over CORE", e);
        }
        return received;
    }

    /** A message read over CORE: its JMS type, its body as the sender wrote it, and the message for its properties. */
    public record Received(byte type, String text, byte[] bytes, ClientMessage message) {

        static Received of(ClientMessage message) {
            if (message.getType() == Message.TEXT_TYPE) {
                SimpleString text = TextMessageUtil.readBodyText(message.getBodyBuffer());
                return new Received(message.getType(), text == null ? null : text.toString(), null, message);
            }
            byte[] bytes = new byte[message.getBodyBuffer().readableBytes()];
            message.getBodyBuffer().readBytes(bytes);
            return new Received(message.getType(), null, bytes, message);
        }

        public String property(String name) {
            Object value = message.getObjectProperty(SimpleString.of(name));
            return value == null ? null : value.toString();
        }

        @Override
        public String toString() {
            return "Received[type=" + type + ", text=" + text + ", bytes=" + java.util.Arrays.toString(bytes) + "]";
        }
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (ActiveMQException e) {
            throw new IllegalStateException(e);
        } finally {
            factory.close();
            locator.close();
        }
    }
}
