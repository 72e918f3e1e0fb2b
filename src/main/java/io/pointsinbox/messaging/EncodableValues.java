package io.pointsinbox.messaging;

import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Values as the AMQP library can write them again. Proton-J reads an AMQP array of a primitive type (int, long,
 * boolean, byte, short, float, double, char) as a Java primitive array ({@code int[]}), and writes such an array back
 * only at the top of a section: inside a map or a list (application properties, message annotations, a footer, a map,
 * list or sequence body) it fails with a {@code ClassCastException}, inside another array (an AMQP array of arrays,
 * read as an {@code Object[]} of them) with a {@code NullPointerException}, so a refused message holding one could
 * not be dead-lettered with its reason. The same array boxed ({@code Integer[]}) is written as the same AMQP array,
 * byte for byte. Values without a primitive array are returned as they are, the same instance.
 */
final class EncodableValues {

    private EncodableValues() {
    }

    /** The value, with every primitive array in it, at any depth, boxed. */
    static Object of(Object value) {
        if (value == null) {
            return null;
        }
        Class<?> type = value.getClass();
        if (type.isArray()) {
            return type.getComponentType().isPrimitive() ? boxed(value) : elements((Object[]) value);
        }
        if (value instanceof Map<?, ?> map) {
            return map(map);
        }
        if (value instanceof List<?> list) {
            return list(list);
        }
        return value;
    }

    /** The map, or a copy of it in the same order whose keys and values hold no primitive array. */
    @SuppressWarnings("unchecked")
    static <K, V> Map<K, V> map(Map<K, V> map) {
        // Each key and value is visited once: a second visit per level would double the work at every depth.
        Object[] keys = new Object[map.size()];
        Object[] values = new Object[map.size()];
        boolean changed = false;
        int i = 0;
        for (Map.Entry<K, V> entry : map.entrySet()) {
            keys[i] = of(entry.getKey());
            values[i] = of(entry.getValue());
            changed |= keys[i] != entry.getKey() || values[i] != entry.getValue();
            i++;
        }
        if (!changed) {
            return map;
        }
        Map<Object, Object> copy = new LinkedHashMap<>();
        for (int j = 0; j < keys.length; j++) {
            copy.put(keys[j], values[j]);
        }
        return (Map<K, V>) copy;
    }

    /** The list, or a copy of it whose elements hold no primitive array. */
    @SuppressWarnings("unchecked")
    static <E> List<E> list(List<E> list) {
        Object[] elements = list.toArray();
        Object[] encodable = elements(elements);
        return encodable == elements ? list : (List<E>) new ArrayList<>(Arrays.asList(encodable));
    }

    private static Object[] elements(Object[] array) {
        Object[] copy = null;
        for (int i = 0; i < array.length; i++) {
            Object encodable = of(array[i]);
            if (copy == null && encodable != array[i]) {
                copy = array.clone();
            }
            if (copy != null) {
                copy[i] = encodable;
            }
        }
        return copy == null ? array : copy;
    }

    private static Object[] boxed(Object primitives) {
        Class<?> box = MethodType.methodType(primitives.getClass().getComponentType()).wrap().returnType();
        int length = Array.getLength(primitives);
        Object[] boxed = (Object[]) Array.newInstance(box, length);
        for (int i = 0; i < length; i++) {
            boxed[i] = Array.get(primitives, i);
        }
        return boxed;
    }
}
