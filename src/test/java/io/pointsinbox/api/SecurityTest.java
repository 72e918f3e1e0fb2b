package io.pointsinbox.api;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.builder.ResponseSpecBuilder;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.restassured.specification.ResponseSpecification;

/** Nobody moves a balance, or reads the operators' report, without being allowed to; and nothing is stored. */
@QuarkusTest
class SecurityTest extends InboxTestBase {

    /** A 401 says why in the same JSON shape as every 4xx, and names the scheme to use. */
    private static final ResponseSpecification UNAUTHORIZED = new ResponseSpecBuilder().expectStatusCode(401)
            .expectContentType(ContentType.JSON).expectHeader("WWW-Authenticate", "Bearer")
            .expectBody("error", equalTo("unauthorized")).expectBody("message", containsString("bearer token"))
            .build();
    private static final ResponseSpecification FORBIDDEN = new ResponseSpecBuilder().expectStatusCode(403)
            .expectContentType(ContentType.JSON).expectBody("error", equalTo("forbidden"))
            .expectBody("message", containsString("role")).build();

    @BeforeEach
    void noDefaultToken() {
        RestAssured.requestSpecification = null;
    }

    @ParameterizedTest
    @ValueSource(strings = { "points-granted", "points-redeemed" })
    void writingWithoutATokenIs401(String endpoint) {
        post(given(), endpoint).then().spec(UNAUTHORIZED);
        assertNothingStored();
    }

    @Test
    void writingWithAnExpiredTokenIs401() {
        post(bearer(Tokens.expired(Tokens.WRITER)), "points-granted").then().spec(UNAUTHORIZED);
        assertNothingStored();
    }

    @Test
    void writingWithATokenSignedByAnUntrustedKeyIs401() {
        post(bearer(Tokens.signedByAStranger(Tokens.WRITER)), "points-granted").then().spec(UNAUTHORIZED);
        assertNothingStored();
    }

    @Test
    void writingWithoutTheWriterRoleIs403() {
        post(bearer(Tokens.withRoles(Tokens.OPS)), "points-granted").then().spec(FORBIDDEN);
        assertNothingStored();
    }

    @Test
    void theWriterRoleMayWrite() {
        post(bearer(Tokens.withRoles(Tokens.WRITER)), "points-granted").then().statusCode(200);
        assertEquals(1, Ledger.totalRows("inbox_message"), "stored once allowed");
    }

    @Test
    void theReconciliationNeedsTheOpsRole() {
        given().get("/admin/reconciliation").then().spec(UNAUTHORIZED);
        bearer(Tokens.withRoles(Tokens.WRITER)).get("/admin/reconciliation").then().spec(FORBIDDEN);
        bearer(Tokens.expired(Tokens.OPS)).get("/admin/reconciliation").then().spec(UNAUTHORIZED);
        bearer(Tokens.withRoles(Tokens.OPS)).get("/admin/reconciliation").then().statusCode(200);
    }

    @Test
    void readsAreOpenByDefaultAndHealthAndMetricsStayOpen() {
        given().get("/users/1/points").then().statusCode(404);
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/metrics").then().statusCode(200);
    }

    private static RequestSpecification bearer(String token) {
        return given().header("Authorization", "Bearer " + token);
    }

    private static io.restassured.response.Response post(RequestSpecification request, String endpoint) {
        String body = grant(UUID.randomUUID(), 8_008, 10);
        if (endpoint.equals("points-redeemed")) {
            body = body.replace("PointsGranted.v1", "PointsRedeemed.v1");
        }
        return request.contentType(ContentType.JSON).body(body).post("/messages/" + endpoint);
    }

    private static void assertNothingStored() {
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
        assertEquals(0, Ledger.totalRows("user_points"), "no balance moved");
    }
}
