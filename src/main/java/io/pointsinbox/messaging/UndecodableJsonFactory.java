package io.pointsinbox.messaging;

import java.util.Comparator;
import java.util.ServiceLoader;
import java.util.stream.StreamSupport;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.jackson.DatabindCodec;
import io.vertx.core.spi.JsonFactory;
import io.vertx.core.spi.json.JsonCodec;

/**
 * Keeps undecodable JSON bodies from vanishing inside the AMQP connector. The connector decodes every data section
 * whose content-type is {@code application/json} while it builds the message, before any application code runs;
 * when that decoding throws, it logs SRMSG16229 and drops the message without settling it, so the delivery stays
 * unsettled for the life of the connection and returns after every reconnect (smallrye-reactive-messaging-amqp
 * 4.33.0; upstream issue smallrye/smallrye-reactive-messaging#2619 asks for a way to turn the decoding off).
 * <p>
 * The connector decodes through Vert.x's JSON codec, which Vert.x takes from this service-provider interface (the
 * lowest {@link #order()} wins). This factory wraps the platform's codec and changes one thing: an untyped decode of
 * a buffer, {@code fromBuffer(buffer, Object.class)}, the call behind {@code Buffer.toJson()}, answers an
 * {@link UndecodableJson} instead of throwing. The message then reaches the consumer like any other, which reads the
 * bytes itself and dead-letters them with the reason. Typed decodes ({@code JsonObject}, {@code JsonArray}, a class)
 * and every encode still fail or succeed as before; nothing else in this service decodes untyped JSON from a buffer.
 */
public final class UndecodableJsonFactory implements JsonFactory {

    @Override
    public int order() {
        // Ahead of Quarkus's own factory, which keeps the default order (Integer.MAX_VALUE).
        return 0;
    }

    @Override
    public JsonCodec codec() {
        return new Codec(platformCodec());
    }

    /** The codec Vert.x would have chosen without this factory: Quarkus's, configured with its ObjectMapper. */
    private static JsonCodec platformCodec() {
        return StreamSupport.stream(ServiceLoader.load(JsonFactory.class, UndecodableJsonFactory.class.getClassLoader())
                .spliterator(), false)
                .filter(factory -> !(factory instanceof UndecodableJsonFactory))
                .min(Comparator.comparingInt(JsonFactory::order))
                .map(JsonFactory::codec)
                .orElseGet(DatabindCodec::new);
    }

    private record Codec(JsonCodec delegate) implements JsonCodec {

        @Override
        @SuppressWarnings("unchecked")
        public <T> T fromBuffer(Buffer buffer, Class<T> type) throws DecodeException {
            try {
                return delegate.fromBuffer(buffer, type);
            } catch (RuntimeException e) {
                if (type != Object.class) {
                    throw e;
                }
                return (T) new UndecodableJson(buffer.length(), String.valueOf(e.getMessage()));
            }
        }

        @Override
        public <T> T fromString(String json, Class<T> type) throws DecodeException {
            return delegate.fromString(json, type);
        }

        @Override
        public <T> T fromValue(Object json, Class<T> type) {
            return delegate.fromValue(json, type);
        }

        @Override
        public String toString(Object object, boolean pretty) {
            return delegate.toString(object, pretty);
        }

        @Override
        public Buffer toBuffer(Object object, boolean pretty) {
            return delegate.toBuffer(object, pretty);
        }
    }
}
