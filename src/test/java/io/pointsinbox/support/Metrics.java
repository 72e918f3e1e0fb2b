package io.pointsinbox.support;

import static io.restassured.RestAssured.given;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads counters from /q/metrics in Prometheus form, as an operator would. */
public final class Metrics {

    private Metrics() {
    }

    public static double messages(String consumer, String outcome) {
        String body = given().get("/q/metrics").then().statusCode(200).extract().asString();
        Pattern line = Pattern.compile("^points_inbox_messages_total\\{(?=[^}]*consumer=\"" + Pattern.quote(consumer)
                + "\")(?=[^}]*outcome=\"" + outcome + "\")[^}]*} ([0-9.eE+-]+)$", Pattern.MULTILINE);
        Matcher matcher = line.matcher(body);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0.0;
    }
}
