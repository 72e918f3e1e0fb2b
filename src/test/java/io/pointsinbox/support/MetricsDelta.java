package io.pointsinbox.support;

import static io.restassured.RestAssured.given;

/**
 * What the service counted since a point in a test: one scrape of /q/metrics at {@link #start()}, then each reading
 * is the current value minus the value at the start, so a test states the increments it expects and nothing else.
 */
public final class MetricsDelta {

    private final String start;

    private MetricsDelta(String start) {
        this.start = start;
    }

    public static MetricsDelta start() {
        return new MetricsDelta(scrape());
    }

    /** Messages counted with {@code outcome} since the start. */
    public double messages(String consumer, String outcome) {
        return Metrics.messages(consumer, outcome) - at("points_inbox_messages_total", consumer, "outcome", outcome);
    }

    /** Deliveries with {@code outcome} whose processing time was recorded since the start (the histogram's count). */
    public double timed(String consumer, String outcome) {
        String[] labels = {"consumer=\"" + consumer + "\"", "outcome=\"" + outcome + "\""};
        return orZero(Metrics.find(scrape(), "points_inbox_processing_seconds_count", labels))
                - orZero(Metrics.find(start, "points_inbox_processing_seconds_count", labels));
    }

    /** Duplicates of a class (in_flight, redelivery, id_conflict) since the start. */
    public double duplicates(String consumer, String duplicateClass) {
        return Metrics.duplicates(consumer, duplicateClass)
                - at("points_inbox_duplicates_total", consumer, "class", duplicateClass);
    }

    /** Poison whose dead-letter copy the broker did not confirm in time, since the start. */
    public double deadLetterUnconfirmed() {
        return Metrics.deadLetterUnconfirmed() - orZero(Metrics.find(start,
                "points_inbox_dead_letter_unconfirmed_total"));
    }

    /** Any series without a consumer tag, since the start (a series absent at the start counts from zero). */
    public double series(String name) {
        return Metrics.series(name) - orZero(Metrics.find(start, name));
    }

    private double at(String name, String consumer, String tag, String value) {
        return orZero(Metrics.find(start, name, "consumer=\"" + consumer + "\"", tag + "=\"" + value + "\""));
    }

    private static double orZero(double value) {
        return Double.isNaN(value) ? 0 : value;
    }

    private static String scrape() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }
}
