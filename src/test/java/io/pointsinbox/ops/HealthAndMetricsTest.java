package io.pointsinbox.ops;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class HealthAndMetricsTest extends io.pointsinbox.support.InboxTestBase {

    @Test
    void readinessCoversTheDatabaseAndTheAmqpConnection() {
        given().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItems("Database connections health check",
                        "SmallRye Reactive Messaging - readiness check"));
    }

    @Test
    void metricsArePublishedInPrometheusFormWithoutIdsInTags() {
        given().contentType("application/json")
                .body("{\"messageId\":\"" + java.util.UUID.randomUUID()
                        + "\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":42,\"amount\":1}}")
                .post("/messages/points-granted").then().statusCode(200);
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("points_inbox_messages_total{consumer=\"points-ledger\",outcome=\"processed\"}"))
                .body(containsString("points_inbox_processing_seconds_count{consumer=\"points-ledger\""));
    }

    @Test
    void theInboxRowGaugeFollowsTheTableWithoutAnAnalyze() {
        io.pointsinbox.support.Ledger.reset();
        io.pointsinbox.support.Ledger.execute("insert into inbox_message (id, consumer, message_id, message_type,"
                + " payload_json, payload_hash, outcome, received_at, processed_at) select -g, 'gauge-check',"
                + " gen_random_uuid(), 'PointsGranted.v1', '{}', 'x', 'PROCESSED', now(), now()"
                + " from generate_series(1, 500) g");
        // PostgreSQL publishes its live-row statistic within seconds; the gauge caches its reading for 10 s.
        org.awaitility.Awaitility.await("points_inbox_rows reaches 500").atMost(java.time.Duration.ofSeconds(60))
                .pollInterval(java.time.Duration.ofSeconds(1))
                .until(() -> io.pointsinbox.support.Metrics.series("points_inbox_rows") >= 500);
        io.pointsinbox.support.Ledger.reset();
    }

    @Test
    void everyMetricTheGrafanaDashboardQueriesIsPublished() throws Exception {
        String dashboard = java.nio.file.Files.readString(java.nio.file.Path.of("docker/grafana/points-inbox.json"));
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        java.util.regex.Matcher name = java.util.regex.Pattern.compile("points_[a-z_]+").matcher(dashboard);
        java.util.Set<String> missing = new java.util.TreeSet<>();
        while (name.find()) {
            if (!metrics.contains(name.group() + "{") && !metrics.contains(name.group() + " ")) {
                missing.add(name.group());
            }
        }
        org.junit.jupiter.api.Assertions.assertEquals(java.util.Set.of(), missing,
                "metrics queried by docker/grafana/points-inbox.json but not published");
    }
}
