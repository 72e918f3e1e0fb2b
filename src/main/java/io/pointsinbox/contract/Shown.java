package io.pointsinbox.contract;

import java.util.HexFormat;
import java.util.UUID;

import org.apache.qpid.proton.amqp.Binary;

/**
 * A value the sender chose (an id, a type, a key, a content coding), made fit to quote in a log line and in a
 * dead-letter reason: every character that could end the line or disguise it (control characters, line and paragraph
 * separators, the invisible format characters such as bidirectional overrides, a lone surrogate) is written as its
 * escape ({@code \n}, {@code \u2028}), and the value is cut, at a whole character, after a bound. A sender can then
 * neither forge a log line of its own nor fill the log with one field.
 */
public final class Shown {

    private static final HexFormat HEX = HexFormat.of();

    private Shown() {
    }

    /** The text escaped, then cut after {@code max} characters as written (escapes counted), {@code ...} marking it. */
    public static String text(String text, int max) {
        StringBuilder shown = new StringBuilder(Math.min(text.length(), max) + 8);
        int i = 0;
        while (i < text.length()) {
            if (shown.length() >= max) {
                return shown.append("...").toString();
            }
            int codePoint = text.codePointAt(i);
            int width = Character.charCount(codePoint);
            if (isInvisible(codePoint)) {
                for (int unit = i; unit < i + width; unit++) {
                    escape(text.charAt(unit), shown);
                }
            } else {
                shown.appendCodePoint(codePoint);
            }
            i += width;
        }
        return shown.toString();
    }

    /**
     * An AMQP message-id as a log line names it: a UUID or a number as it is, a string escaped and cut after 64
     * characters, a binary as hexadecimal (its first 32 bytes), whatever its bytes.
     */
    public static String messageId(Object id) {
        if (id instanceof UUID || id instanceof Number) {
            return id.toString();
        }
        if (id instanceof Binary binary) {
            int length = binary.getLength();
            String hex = HEX.formatHex(binary.getArray(), binary.getArrayOffset(),
                    binary.getArrayOffset() + Math.min(length, 32));
            return "binary 0x" + hex + (length > 32 ? "... (" + length + " bytes)" : "");
        }
        return text(String.valueOf(id), 64);
    }

    private static boolean isInvisible(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.FORMAT,
                    Character.SURROGATE, Character.UNASSIGNED, Character.PRIVATE_USE -> true;
            default -> false;
        };
    }

    private static void escape(char c, StringBuilder shown) {
        switch (c) {
            case '\n' -> shown.append("\\n");
            case '\r' -> shown.append("\\r");
            case '\t' -> shown.append("\\t");
            default -> shown.append(String.format("\\u%04x", (int) c));
        }
    }
}
