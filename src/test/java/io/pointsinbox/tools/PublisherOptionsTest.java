package io.pointsinbox.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** bin/publish refuses what it cannot use with a message naming the option, instead of failing deep inside. */
class PublisherOptionsTest {

    @Test
    void givenOptionsOverrideTheDefaults() {
        Publisher.Options options = Publisher.Options.parse("--messages", "500", "--duplicates", "0", "--senders",
                "8", "--amqp-port", "5674", "--first-user", "42", "--wait-seconds", "5");
        assertEquals(500, options.messages());
        assertEquals(0.0, options.duplicateShare());
        assertEquals(8, options.senders());
        assertEquals(5674, options.amqpPort());
        assertEquals(42, options.firstUser());
        assertEquals(5, options.waitSeconds());
        assertEquals(10, options.users());
        assertEquals("points-granted", options.address());
    }

    @Test
    void aDuplicateCountInsteadOfAShareIsRefusedWithTheReason() {
        assertEquals("--duplicates is the share of duplicates, from 0 up to (not including) 1, got 100",
                refusal("--messages", "500", "--duplicates", "100"));
        assertEquals("--messages 1 with --duplicates 0.9 leaves no unique message to duplicate",
                refusal("--messages", "1", "--duplicates", "0.9"));
    }

    @Test
    void unknownOptionsAndMissingValuesAreRefused() {
        assertEquals("unknown option '--message'", refusal("--message", "500"));
        assertEquals("unknown option '500'", refusal("500"));
        assertEquals("option '--senders' needs a value", refusal("--messages", "5", "--senders"));
    }

    @Test
    void numbersOutOfRangeOrMalformedAreRefused() {
        assertEquals("--senders must be at least 1, got 0", refusal("--senders", "0"));
        assertEquals("--messages must be a whole number, got 'many'", refusal("--messages", "many"));
        assertEquals("--amqp-port must be a port number, got 70000", refusal("--amqp-port", "70000"));
        assertEquals("--duplicates must be a number, got 'some'", refusal("--duplicates", "some"));
    }

    @Test
    void theUsageAndHelpNameEveryOptionTheParserKnows() {
        for (String option : Publisher.Options.KNOWN) {
            assertTrue(Publisher.USAGE.contains("--" + option + " "), "usage lacks --" + option);
            assertTrue(Publisher.HELP.contains("--" + option + " "), "--help lacks --" + option);
        }
    }

    private static String refusal(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> Publisher.Options.parse(args)).getMessage();
    }
}
