package io.pointsinbox.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.junit.jupiter.api.Test;

/** A sender's value quoted in a log line or a reason: one line, bounded, every visible character as sent. */
class ShownTest {

    @Test
    void charactersThatCouldEndOrDisguiseALineAreEscaped() {
        assertEquals("abc\\n00:00:00,000 ERROR forged\\r\\t", Shown.text("abc\n00:00:00,000 ERROR forged\r\t", 100));
        assertEquals("a\\u2028b\\u2029c\\u0085d\\u0000e\\u001bf", Shown.text("a\u2028b\u2029c\u0085d\u0000e\u001bf",
                100), "line and paragraph separators, NEL, NUL, ESC");
        assertEquals("evil\\u202etxt.exe\\u200b\\ufeff", Shown.text("evil\u202etxt.exe\u200b\ufeff", 100),
                "a bidirectional override, a zero-width space, a byte order mark");
        assertEquals("lone \\ud800 surrogate", Shown.text("lone \ud800 surrogate", 100));
    }

    @Test
    void visibleTextIsKeptAsSentWholeCharactersIncluded() {
        assertEquals("Grüße, 点数 \uD83D\uDE00 'quoted' \\backslash",
                Shown.text("Grüße, 点数 \uD83D\uDE00 'quoted' \\backslash", 100));
        assertEquals("", Shown.text("", 10));
    }

    @Test
    void aLongValueIsCutAtAWholeCharacterAfterItsBound() {
        assertEquals("y".repeat(64) + "...", Shown.text("y".repeat(6000), 64));
        assertEquals("y".repeat(64), Shown.text("y".repeat(64), 64), "a value at its bound is not cut");
        // The 64th character is a pair of surrogates: kept whole, never half of it.
        String emoji = "\uD83D\uDE00";
        assertEquals("y".repeat(63) + emoji + "...", Shown.text("y".repeat(63) + emoji + "tail", 64));
        // Escapes count as written, so a line of control characters is bounded too.
        String cut = Shown.text("\n".repeat(1000), 64);
        assertEquals(64 + "...".length(), cut.length(), cut);
        assertFalse(cut.contains("\n"));
    }

    @Test
    void anAmqpMessageIdIsNamedByItsTypeWhateverItsBytes() {
        UUID uuid = UUID.fromString("3b67db87-8f73-4e48-a8a1-2a2ae36db8e0");
        assertEquals(uuid.toString(), Shown.messageId(uuid));
        assertEquals("7", Shown.messageId(UnsignedLong.valueOf(7)));
        assertEquals("ID:abc-1\\nforged", Shown.messageId("ID:abc-1\nforged"));
        byte[] raw = { 0x3b, 0x67, (byte) 0xdb, (byte) 0x87, 0x0a, 0x00 };
        assertEquals("binary 0x3b67db870a00", Shown.messageId(new Binary(raw)));
        byte[] offset = { 1, 2, 3, 4 };
        assertEquals("binary 0x0203", Shown.messageId(new Binary(offset, 1, 2)), "only the binary's own bytes");
        String long40 = Shown.messageId(new Binary(new byte[40]));
        assertEquals("binary 0x" + "00".repeat(32) + "... (40 bytes)", long40);
        assertTrue(Shown.messageId("x".repeat(500)).length() <= 64 + 3);
    }
}
