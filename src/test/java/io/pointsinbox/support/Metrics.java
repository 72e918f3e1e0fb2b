package io.pointsinbox.support;

import static io.restassured.RestAssured.given;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads counters from /q/metrics in Prometheus form, as an operator would. */
public final class Metrics {

    private Metrics() {
    }

    public static double messages(String consumer, String outcome) {
        return counter("points_inbox_messages_total", consumer, "outcome", outcome);
    }

    /** Duplicates of a class: in_flight, redelivery or id_conflict. */
    public static double duplicates(String consumer, String duplicateClass) {
        return counter("points_inbox_duplicates_total", consumer, "class", duplicateClass);
    }

    /** Poison whose dead-letter copy the broker did not confirm within the bound (the consumer under test). */
    public static double deadLetterUnconfirmed() {
        return series("points_inbox_dead_letter_unconfirmed_total");
    }

    private static double counter(String name, String consumer, String tag, String value) {
        String body = given().get("/q/metrics").then().statusCode(200).extract().asString();
        double found = find(body, name, "consumer=\"" + consumer + "\"", tag + "=\"" + value + "\"");
        if (Double.isNaN(found)) {
            throw new AssertionError(name + "{consumer=" + consumer + "," + tag + "=" + value + "} is not published");
        }
        return found;
    }

    /** A gauge or counter without consumer tag from the application under test, or NaN when not published. */
    public static double series(String name) {
        return find(given().get("/q/metrics").then().statusCode(200).extract().asString(), name);
    }

    /**
     * The value of the first series called {@code name} whose labels contain every given {@code key="value"}
     * fragment, in a Prometheus text body; NaN when there is none.
     */
    public static double find(String body, String name, String... labels) {
        StringBuilder lookaheads = new StringBuilder();
        for (String label : labels) {
            lookaheads.append("(?=[^}]*").append(Pattern.quote(label)).append(')');
        }
        String labelSet = labels.length == 0 ? "(\\{[^}]*})?" : "\\{" + lookaheads + "[^}]*}";
        Matcher matcher = Pattern.compile("^" + Pattern.quote(name) + labelSet + " ([0-9.eE+-]+)$", Pattern.MULTILINE)
                .matcher(body);
        return matcher.find() ? Double.parseDouble(matcher.group(matcher.groupCount())) : Double.NaN;
    }
}
