package io.pointsinbox.messaging;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

/**
 * Arrays of a primitive type, as another client sends them (Qpid Proton's Python client, say: {@code
 * Array(UNDESCRIBED, Data.INT, 1, 2, 3)} in an application property), read by the AMQP library under the connector
 * and written again in a dead-letter copy. On the library alone, no broker.
 */
class EncodableValuesTest {

    /** One array of each primitive type AMQP has arrays of, and an empty one, as a sender's client boxes them. */
    private static Map<String, Object> arrays() {
        Map<String, Object> arrays = new LinkedHashMap<>();
        arrays.put("int", new Integer[] { 1, -2, 300_000 });
        arrays.put("long", new Long[] { 5L, 1L << 40 });
        arrays.put("boolean", new Boolean[] { true, false });
        arrays.put("byte", new Byte[] { -1, 2 });
        arrays.put("short", new Short[] { -2, 3 });
        arrays.put("float", new Float[] { 1.5f });
        arrays.put("double", new Double[] { 2.5 });
        arrays.put("char", new Character[] { 'x', 'y' });
        arrays.put("empty int", new Integer[0]);
        arrays.put("string", new String[] { "a", "b" });
        return arrays;
    }

    @Test
    void theLibraryReadsPrimitiveArraysItCannotWriteInAMap() {
        Message received = received(m -> m.setApplicationProperties(new ApplicationProperties(arrays())));
        Map<String, Object> read = received.getApplicationProperties().getValue();
        assertInstanceOf(int[].class, read.get("int"), "an AMQP int array is read as an int[]");
        assertInstanceOf(char[].class, read.get("char"));
        assertInstanceOf(String[].class, read.get("string"));
        Message again = Message.Factory.create();
        again.setApplicationProperties(new ApplicationProperties(read));
        assertThrows(ClassCastException.class, () -> encode(again),
                "the library's own limit, which the dead-letter copy works around");
    }

    @Test
    void aCopyWritesEveryArrayBackAsTheSameAmqpArrayWhereverItIs() {
        Map<Symbol, Object> annotations = new LinkedHashMap<>();
        arrays().forEach((key, value) -> annotations.put(Symbol.valueOf("x-opt-" + key), value));
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("list", new ArrayList<>(List.of("a", new Long[] { 7L })));
        nested.put("map", Map.of("flags", new Boolean[] { true }));
        Message received = received(m -> {
            m.setApplicationProperties(new ApplicationProperties(arrays()));
            m.setMessageAnnotations(new MessageAnnotations(annotations));
            m.setBody(new AmqpValue(nested));
            m.setFooter(new Footer(Map.of(Symbol.valueOf("x-opt-checksums"), new Integer[] { 9, 8 })));
        });

        Message copy = decode(encode(DeadLetters.copy(received, Map.of(DeadLetters.REASON, "refused"))));

        Map<String, Object> properties = copy.getApplicationProperties().getValue();
        arrays().keySet().forEach(key -> assertArrayEquals(encodedValue(arrays().get(key)),
                encodedValue(properties.get(key)), "application property " + key + ": the same AMQP array"));
        assertEquals(List.of("int", "long", "boolean", "byte", "short", "float", "double", "char", "empty int",
                "string", DeadLetters.REASON), List.copyOf(properties.keySet()), "in the order sent, the reason added");
        arrays().keySet().forEach(key -> assertArrayEquals(encodedValue(arrays().get(key)),
                encodedValue(copy.getMessageAnnotations().getValue().get(Symbol.valueOf("x-opt-" + key))),
                "message annotation x-opt-" + key));
        Map<?, ?> body = (Map<?, ?>) ((AmqpValue) copy.getBody()).getValue();
        assertEquals("a", ((List<?>) body.get("list")).get(0));
        assertArrayEquals(new long[] { 7L }, (long[]) ((List<?>) body.get("list")).get(1), "an array in a list");
        assertArrayEquals(new boolean[] { true }, (boolean[]) ((Map<?, ?>) body.get("map")).get("flags"),
                "an array in a map in the body");
        assertArrayEquals(new int[] { 9, 8 }, (int[]) copy.getFooter().getValue().get(Symbol.valueOf(
                "x-opt-checksums")), "the footer's array");
    }

    @Test
    void aSequenceBodyAndAnArrayValueBodyAreWrittenBackToo() {
        Message sequence = received(m -> m.setBody(new AmqpSequence(List.of(new Double[] { 0.5 }, "x"))));
        List<?> copied = ((AmqpSequence) decode(encode(DeadLetters.copy(sequence, Map.of()))).getBody()).getValue();
        assertArrayEquals(new double[] { 0.5 }, (double[]) copied.get(0));
        assertEquals("x", copied.get(1));

        Message array = received(m -> m.setBody(new AmqpValue(new Short[] { 4, 5 })));
        assertArrayEquals(new short[] { 4, 5 }, (short[]) ((AmqpValue) decode(encode(DeadLetters.copy(array,
                Map.of()))).getBody()).getValue());
    }

    @Test
    void anArrayOfArraysIsWrittenBackToo() {
        // Read as an Object[] of int[], which the library cannot write even at the top of a body.
        Message received = received(m -> {
            Integer[][] matrix = { { 1, 2 }, { 3 } };
            m.setApplicationProperties(new ApplicationProperties(Map.of("matrix", matrix)));
            m.setBody(new AmqpValue(new Long[][] { { 4L }, { 5L, 6L } }));
        });
        Message copy = decode(encode(DeadLetters.copy(received, Map.of())));
        assertArrayEquals(new Object[] { new int[] { 1, 2 }, new int[] { 3 } },
                (Object[]) copy.getApplicationProperties().getValue().get("matrix"), "in an application property");
        assertArrayEquals(new Object[] { new long[] { 4L }, new long[] { 5L, 6L } },
                (Object[]) ((AmqpValue) copy.getBody()).getValue(), "as the body");
    }

    @Test
    void valuesWithoutAPrimitiveArrayAreLeftAsTheyAre() {
        Map<String, Object> map = new LinkedHashMap<>(Map.of("a", 1, "b", List.of("x", new String[] { "y" })));
        assertSame(map, EncodableValues.map(map));
        List<Object> list = List.of(1L, Map.of("k", "v"), new Symbol[] { Symbol.valueOf("s") });
        assertSame(list, EncodableValues.list(list));
        Object[] objects = { "a", 2 };
        assertSame(objects, EncodableValues.of(objects));
        assertSame(null, EncodableValues.of(null));

        Map<String, Object> withArray = new LinkedHashMap<>();
        withArray.put("first", "kept");
        withArray.put("ints", new int[] { 1 });
        withArray.put("last", 3);
        Map<String, Object> boxed = EncodableValues.map(withArray);
        assertEquals(List.of("first", "ints", "last"), List.copyOf(boxed.keySet()), "the order kept");
        assertArrayEquals(new Integer[] { 1 }, (Integer[]) boxed.get("ints"));
        assertArrayEquals(new int[] { 1 }, (int[]) withArray.get("ints"), "the original left unchanged");
    }

    @Test
    void deeplyNestedValuesAreVisitedOnceEach() {
        // A sender chooses how deep its maps and lists nest: visiting each level twice would cost 2^depth visits.
        Object value = new int[] { 42 };
        for (int depth = 0; depth < 100; depth++) {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("next", depth % 2 == 0 ? value : new ArrayList<>(List.of("x", value)));
            value = map;
        }
        Object nested = value;
        Object boxed = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> EncodableValues.of(nested));
        assertArrayEquals(new Integer[] { 42 }, (Integer[]) bottom(boxed), "the array at the bottom boxed");
        Message copy = Message.Factory.create();
        copy.setBody(new AmqpValue(boxed));
        assertArrayEquals(new int[] { 42 }, (int[]) bottom(((AmqpValue) decode(encode(copy)).getBody()).getValue()),
                "and written back as the same AMQP array");
    }

    /** The value under the chain of {@code next} entries, through the lists on the way. */
    private static Object bottom(Object value) {
        Object bottom = value;
        while (bottom instanceof Map<?, ?> map) {
            Object next = map.get("next");
            bottom = next instanceof List<?> list ? list.get(1) : next;
        }
        return bottom;
    }

    /** A message as the connector hands it over: built by a sender, encoded, and read by the library. */
    private static Message received(Consumer<Message> build) {
        Message sent = Message.Factory.create();
        build.accept(sent);
        return decode(encode(sent));
    }

    private static byte[] encode(Message message) {
        byte[] buffer = new byte[64 * 1024];
        return Arrays.copyOf(buffer, message.encode(buffer, 0, buffer.length));
    }

    private static Message decode(byte[] bytes) {
        Message message = Message.Factory.create();
        message.decode(bytes, 0, bytes.length);
        return message;
    }

    /** A value as the only content of an amqp-value section, encoded: compares values by their AMQP type and bytes. */
    private static byte[] encodedValue(Object value) {
        Message message = Message.Factory.create();
        message.setBody(new AmqpValue(value));
        return encode(message);
    }
}
