package io.pointsinbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void aDurationReadsAsASettingIsWritten() {
        assertEquals("7d", Durations.readable(Duration.ofDays(7)));
        assertEquals("1h", Durations.readable(Duration.ofHours(1)));
        assertEquals("10s", Durations.readable(Duration.ofSeconds(10)));
        assertEquals("0s", Durations.readable(Duration.ZERO));
        assertEquals("500ms", Durations.readable(Duration.ofMillis(500)));
    }

    @Test
    void aDurationOfSeveralUnitsNamesEachPartThatIsNotZero() {
        // The default redelivery budget: 10 attempts x 60 s + a re-drive horizon of 3 days.
        assertEquals("3d 10m", Durations.readable(Duration.ofSeconds(10 * 60).plusDays(3)));
        assertEquals("1d 2h 3m 4s 5ms", Durations.readable(Duration.ofDays(1).plusHours(2).plusMinutes(3)
                .plusSeconds(4).plusMillis(5)));
    }

    @Test
    void whatTheUnitsCannotSayKeepsTheIsoForm() {
        assertEquals("PT-1S", Durations.readable(Duration.ofSeconds(-1)));
        assertEquals("PT0.0000015S", Durations.readable(Duration.ofNanos(1_500)));
    }
}
