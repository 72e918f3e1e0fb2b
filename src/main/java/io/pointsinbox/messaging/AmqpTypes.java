package io.pointsinbox.messaging;

import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Decimal128;
import org.apache.qpid.proton.amqp.Decimal32;
import org.apache.qpid.proton.amqp.Decimal64;
import org.apache.qpid.proton.amqp.DescribedType;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.UnsignedShort;

/**
 * The AMQP 1.0 type name of a value as proton-j decodes it ({@code uint}, {@code symbol}, {@code timestamp}), so that
 * a refusal names what the sender put on the wire in the terms of its own client library, not a Java class.
 */
final class AmqpTypes {

    private AmqpTypes() {
    }

    private static final Map<Class<?>, String> NAMES = Map.ofEntries(Map.entry(Boolean.class, "boolean"),
            Map.entry(UnsignedByte.class, "ubyte"), Map.entry(UnsignedShort.class, "ushort"),
            Map.entry(UnsignedInteger.class, "uint"), Map.entry(UnsignedLong.class, "ulong"),
            Map.entry(Byte.class, "byte"), Map.entry(Short.class, "short"), Map.entry(Integer.class, "int"),
            Map.entry(Long.class, "long"), Map.entry(Float.class, "float"), Map.entry(Double.class, "double"),
            Map.entry(Decimal32.class, "decimal32"), Map.entry(Decimal64.class, "decimal64"),
            Map.entry(Decimal128.class, "decimal128"), Map.entry(Character.class, "char"),
            Map.entry(Date.class, "timestamp"), Map.entry(UUID.class, "uuid"), Map.entry(Binary.class, "binary"),
            Map.entry(String.class, "string"), Map.entry(Symbol.class, "symbol"));

    static String name(Object value) {
        if (value == null) {
            return "null";
        }
        String name = NAMES.get(value.getClass());
        if (name != null) {
            return name;
        }
        if (value instanceof Map) {
            return "map";
        }
        if (value instanceof List) {
            return "list";
        }
        if (value.getClass().isArray()) {
            return "array";
        }
        if (value instanceof DescribedType) {
            return "described";
        }
        return value.getClass().getSimpleName();
    }
}
