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
 * Keeps the AMQP connector from parsing JSON bodies that the consumer parses anyway, and from losing the ones it
 * cannot parse. The connector decodes every data section whose content-type is {@code application/json} while it
 * builds the message, on the event loop, before any application code runs: a second parse of every such message,
 * whose result the consumer never reads (it validates the raw bytes strictly, {@code EnvelopeReader}), and, when
 * the decoding throws, SRMSG16229 and a delivery dropped without being settled, so that it stays unsettled for the
 * life of the connection and returns after every reconnect (smallrye-reactive-messaging-amqp 4.33.0; upstream issue
 * smallrye/smallrye-reactive-messaging#2619 asks for a way to turn the decoding off).
 * <p>
 * The connector decodes through Vert.x's JSON codec, which Vert.x takes from this service-provider interface (the
 * lowest {@link #order()} wins). This factory wraps the platform's codec and changes one thing: an untyped decode of
 * a buffer, {@code fromBuffer(buffer, Object.class)}, the call behind {@code Buffer.toJson()}, answers an
 * {@link UnparsedJson} without reading the bytes. Typed decodes ({@code JsonObject}, {@code JsonArray}, a class) and
 * every encode behave as before; nothing else in this service decodes untyped JSON from a buffer.
 */
public final class UnparsedJsonFactory implements JsonFactory {

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
        return StreamSupport.stream(ServiceLoader.load(JsonFactory.class, UnparsedJsonFactory.class.getClassLoader())
                .spliterator(), false)
                .filter(factory -> !(factory instanceof UnparsedJsonFactory))
                .min(Comparator.comparingInt(JsonFactory::order))
                .map(JsonFactory::codec)
                .orElseGet(DatabindCodec::new);
    }

    private record Codec(JsonCodec delegate) implements JsonCodec {

        @Override
        @SuppressWarnings("unchecked")
        public <T> T fromBuffer(Buffer buffer, Class<T> type) throws DecodeException {
            if (type == Object.class) {
                return (T) new UnparsedJson(buffer.length());
            }
            return delegate.fromBuffer(buffer, type);
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
