package io.pointsinbox.config;

import java.time.Duration;

/** Durations in messages written as a user writes a setting ({@code 7d}, {@code 3d 10m}), not as {@code PT168H}. */
public final class Durations {

    private Durations() {
    }

    /**
     * The duration in days, hours, minutes, seconds and milliseconds, each part that is not zero: {@code 7d},
     * {@code 1h 30m}, {@code 1s 500ms}, {@code 0s}. A negative duration, or one with a fraction of a millisecond,
     * keeps the ISO-8601 form.
     */
    public static String readable(Duration duration) {
        if (duration.isNegative() || duration.getNano() % 1_000_000 != 0) {
            return duration.toString();
        }
        if (duration.isZero()) {
            return "0s";
        }
        StringBuilder text = new StringBuilder();
        part(text, duration.toDays(), "d");
        part(text, duration.toHoursPart(), "h");
        part(text, duration.toMinutesPart(), "m");
        part(text, duration.toSecondsPart(), "s");
        part(text, duration.toMillisPart(), "ms");
        return text.toString();
    }

    private static void part(StringBuilder text, long value, String unit) {
        if (value != 0) {
            text.append(text.isEmpty() ? "" : " ").append(value).append(unit);
        }
    }
}
