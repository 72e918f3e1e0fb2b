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

    private static double counter(String name, String consumer, String tag, String value) {
        String body = given().get("/q/metrics").then().statusCode(200).extract().asString();
        Pattern line = Pattern.compile("^" + name + "\\{(?=[^}]*consumer=\"" + Pattern.quote(consumer)
                + "\")(?=[^}]*" + tag + "=\"" + value + "\")[^}]*} ([0-9.eE+-]+)$", Pattern.MULTILINE);
        Matcher matcher = line.matcher(body);
        if (!matcher.find()) {
            throw new AssertionError(name + "{consumer=" + consumer + "," + tag + "=" + value + "} is not published");
        }
        return Double.parseDouble(matcher.group(1));
    }
}
