package io.pointsinbox.api;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

@QuarkusTest
class PointsMessageResourceTest extends InboxTestBase {

    @Test
    void firstPostIsProcessedTheSecondIsADuplicate() {
        UUID id = UUID.randomUUID();
        post(grant(id, 123, 100)).statusCode(200)
                .body("status", equalTo("processed"), "messageId", equalTo(id.toString()));
        post(grant(id, 123, 100)).statusCode(200)
                .body("status", equalTo("duplicate_ignored"), "messageId", equalTo(id.toString()));

        given().get("/users/123/points").then().statusCode(200).body("userId", equalTo(123), "balance", equalTo(100));
        given().get("/users/123/grants").then().statusCode(200).body("$", hasSize(1))
                .body("[0].messageId", equalTo(id.toString()), "[0].amount", equalTo(100));
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row");
    }

    /** As over AMQP: one DEBUG line, in the message's log context, and nothing about it at INFO or above. */
    @Test
    void aDuplicatePostIsLoggedOnceAtDebugUnderItsMessageId() {
        UUID id = UUID.randomUUID();
        List<LogCapture.Line> lines;
        try (LogCapture everything = LogCapture.of("").debugging(PointsMessageHandler.class)) {
            post(grant(id, 125, 4)).statusCode(200).body("status", equalTo("processed"));
            post(grant(id, 125, 4)).statusCode(200).body("status", equalTo("duplicate_ignored"));
            lines = List.copyOf(everything.linesWithContext());
        }
        List<LogCapture.Line> aboutIt = lines.stream().filter(line -> line.isAbout(id)).toList();
        assertEquals(1, aboutIt.size(), "one line about the message, the duplicate's: " + aboutIt);
        assertTrue(aboutIt.get(0).text().startsWith("DEBUG Duplicate message " + id + " for consumer " + CONSUMER),
                "at DEBUG: " + aboutIt.get(0));
        assertEquals(id.toString(), aboutIt.get(0).context().get("messageId"), "in the message's log context");
        assertEquals(CONSUMER, aboutIt.get(0).context().get("consumer"), "in the consumer's log context");
    }

    @Test
    void anIdDeliveredOverAmqpIsADuplicateOverHttpAndViceVersa() {
        UUID overAmqp = UUID.randomUUID();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(overAmqp, 124, 10));
        }
        awaitDrained();
        await().atMost(Duration.ofSeconds(10)).until(() -> Ledger.inboxRows(CONSUMER, overAmqp) == 1);
        post(grant(overAmqp, 124, 10)).statusCode(200).body("status", equalTo("duplicate_ignored"));

        UUID overHttp = UUID.randomUUID();
        post(grant(overHttp, 124, 20)).statusCode(200).body("status", equalTo("processed"));
        io.pointsinbox.support.MetricsDelta counted = io.pointsinbox.support.MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(grant(overHttp, 124, 20));
        }
        awaitDrained();
        awaitCounter("duplicate", 1, counted);

        assertEquals(30, Ledger.balance(CONSUMER, 124), "each id applied once whatever the transport");
        assertEquals(0, deadLettered(), "nothing dead-lettered");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{not json|body",
            "[]|body",
            "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}|messageId",
            "{\"messageId\":\"nope\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}|messageId",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"X.v1\",\"payload\":{\"userId\":1,\"amount\":1}}|type",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"PointsGranted.v1\"}|payload",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"PointsGranted.v1\",\"payload\":{\"amount\":1}}|payload.userId",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":0}}|payload.amount",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":\"10\"}}|payload.amount",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1.5}}|payload.amount",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":\"1\",\"amount\":1}}|payload.userId",
            "{\"messageId\":42,\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}|messageId",
            "{\"messageId\":\"00000000-0000-0000-0000-000000000000\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}|messageId",
            "{\"messageId\":\"ffffffff-ffff-ffff-ffff-ffffffffffff\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":1}}|messageId",
            "{\"messageId\":\"9b4df7bf-25d4-4a1e-9f07-4cc6fbb4a3ad\",\"type\":7,\"payload\":{\"userId\":1,\"amount\":1}}|type",
    })
    void badInputIs400NamingTheFieldAndStoresNothing(String body, String field) {
        post(body).statusCode(400).contentType(ContentType.JSON)
                .body("error", equalTo("invalid_message"), "field", equalTo(field), "message", startsWith(field + ":"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored for bad input");
    }

    @Test
    void unknownUserIs404WithAJsonError() {
        given().get("/users/999999/points").then().statusCode(404).contentType(ContentType.JSON)
                .body("error", equalTo("not_found"));
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, -1, 1001 })
    void aGrantsLimitOutOfRangeIs400NamingTheBounds(int limit) {
        given().get("/users/123/grants?limit=" + limit).then().statusCode(400).contentType(ContentType.JSON)
                .body("error", equalTo("invalid_parameter"), "field", equalTo("limit"),
                        "message", equalTo("limit must be between 1 and 1000, got " + limit));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "/users/123/grants?limit=abc | limit  | limit must be an integer, got 'abc'",
            "/users/abc/grants           | userId | userId must be an integer, got 'abc'",
            "/users/abc/points           | userId | userId must be an integer, got 'abc'",
            "/users/\u0661/points         | userId | userId must be an integer, got '\u0661'",
            "/users/1\uff12/grants       | userId | userId must be an integer, got '1\uff12'",
            "/users/1/grants?limit=\u0665 | limit  | limit must be an integer, got '\u0665'",
            "/users/0/points             | userId | userId must be a positive integer, got 0",
            "/users/99999999999999999999/points | userId | userId must be a positive integer up to 9223372036854775807,"
                    + " got 99999999999999999999",
            "/users/1/grants?limit=99999999999999999999 | limit | limit must be between 1 and 1000,"
                    + " got 99999999999999999999" })
    void aParameterThatIsNotAnIntegerIs400NamingIt(String path, String field, String message) {
        given().get(path).then().statusCode(400).contentType(ContentType.JSON)
                .body("error", equalTo("invalid_parameter"), "field", equalTo(field), "message", equalTo(message));
    }

    @Test
    void oversizedBodyIs413NamingTheLimit() {
        String padding = "x".repeat(20_000);
        post(grant(UUID.randomUUID(), 1, 1).replace("}}", "},\"padding\":\"" + padding + "\"}"))
                .statusCode(413).contentType(ContentType.JSON)
                .body("error", equalTo("body_too_large"), "message", startsWith("body: at most"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
    }

    /**
     * A body over the HTTP server's own bound (1 MiB) is refused from its declared length before it is read, with the
     * same JSON 413 as one over 16 KiB, not Quarkus's empty one.
     */
    @Test
    void aBodyOverTheServersBoundIs413WithTheSameReason() {
        byte[] body = ("{\"padding\":\"" + "x".repeat(2_000_000) + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then()
                .statusCode(413).contentType(ContentType.JSON)
                .body("error", equalTo("body_too_large"), "field", equalTo("body"),
                        "message", equalTo("body: at most 16384 bytes, got " + body.length));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
        given().get("/q/health/live").then().statusCode(200);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"messageId\":\"%s\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":10,\"amount\":1000000}}"
                    + "|payload.amount|payload.amount: appears twice",
            "{\"messageId\":\"%s\",\"messageId\":\"%s\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,"
                    + "\"amount\":10}}|messageId|messageId: appears twice",
            "{\"messageId\":\"%s\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":10}} {\"x\":1}"
                    + "|body|body: malformed JSON",
            "{\"messageId\":\"%s\",\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":1,\"amount\":10,"
                    + "\"note\":\"a\\u0000b\"}}|payload|payload: contains a NUL character" })
    void ambiguousOrUnstorableJsonIs400NamingTheField(String template, String field, String message) {
        String id = UUID.randomUUID().toString();
        post(template.formatted(id, id)).statusCode(400).contentType(ContentType.JSON)
                .body("error", equalTo("invalid_message"), "field", equalTo(field), "message", startsWith(message));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
        assertEquals(0, Ledger.totalRows("user_points"), "nothing applied");
    }

    @Test
    void aBodyThatIsNotUtf8Is400() {
        byte[] utf16 = grant(UUID.randomUUID(), 1, 1).getBytes(java.nio.charset.StandardCharsets.UTF_16);
        byte[] withBom = ("\uFEFF" + grant(UUID.randomUUID(), 1, 1)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        given().contentType(ContentType.JSON).body(utf16).post("/messages/points-granted").then().statusCode(400)
                .body("field", equalTo("body"), "message", startsWith("body: not UTF-8"));
        given().contentType(ContentType.JSON).body(withBom).post("/messages/points-granted").then().statusCode(400)
                .body("field", equalTo("body"), "message", startsWith("body: starts with a byte order mark"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
    }

    @Test
    void aMethodThePathDoesNotTakeIs405NamingTheOnesItDoes() {
        given().contentType(ContentType.JSON).body(grant(UUID.randomUUID(), 1, 1)).put("/messages/points-granted")
                .then().statusCode(405).contentType(ContentType.JSON).header("Allow", equalTo("OPTIONS, POST"))
                .body("error", equalTo("method_not_allowed"), "message",
                        equalTo("PUT is not allowed here; allowed: OPTIONS, POST"));
        given().delete("/users/1/points").then().statusCode(405).header("Allow", equalTo("GET, HEAD, OPTIONS"))
                .body("message", equalTo("DELETE is not allowed here; allowed: GET, HEAD, OPTIONS"));
        given().post("/admin/reconciliation/").then().statusCode(405).header("Allow", equalTo("GET, HEAD, OPTIONS"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
    }

    @Test
    void aRequestTheRoutingLayerRefusesIs400WithAJsonErrorAndNoErrorLine() throws Exception {
        try (LogCapture everything = LogCapture.of("")) {
            String answer = rawRequest("GET /users/1/points HTTP/1.1\r\nConnection: close\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), answer);
            assertTrue(answer.toLowerCase(java.util.Locale.ROOT).contains("content-type: application/json"), answer);
            assertTrue(answer.endsWith("{\"error\":\"bad_request\",\"field\":null,\"message\":\"For HTTP/1.x requests,"
                    + " the 'Host' header is required\"}"), answer);
            assertTrue(everything.lines().stream().noneMatch(line -> line.startsWith("ERROR")
                    || line.startsWith("SEVERE") || line.startsWith("WARN")), everything.lines().toString());
        }
    }

    /** Sends the bytes as they are, which no HTTP client would, and returns everything the server answers. */
    private static String rawRequest(String request) throws java.io.IOException {
        try (java.net.Socket socket = new java.net.Socket("localhost", io.restassured.RestAssured.port)) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void anAcceptHeaderNoAnswerMeetsIs406NamingIt() {
        given().accept("application/xml").get("/users/1/points").then().statusCode(406)
                .contentType(ContentType.JSON).body("error", equalTo("not_acceptable"), "field", equalTo("Accept"),
                        "message", equalTo("Accept: application/xml cannot be met; this endpoint answers"
                                + " application/json"));
    }

    @Test
    void wrongContentTypeIs415WithAJsonError() {
        given().contentType(ContentType.TEXT).body(grant(UUID.randomUUID(), 1, 1)).post("/messages/points-granted")
                .then().statusCode(415).contentType(ContentType.JSON).body("error", equalTo("unsupported_media_type"),
                        "field", equalTo("Content-Type"), "message",
                        startsWith("Content-Type: text/plain; charset=ISO-8859-1 is not supported; send the JSON as"
                                + " application/json"));
        given().body(grant(UUID.randomUUID(), 1, 1).getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .post("/messages/points-granted").then().statusCode(415).body("field", equalTo("Content-Type"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
    }

    @Test
    void aCompressedBodyIs415NamingTheContentEncodingAndStoresNothing() {
        given().contentType(ContentType.JSON).header("Content-Encoding", "gzip")
                .body(AmqpTestClient.gzip(grant(UUID.randomUUID(), 1, 10)))
                .post("/messages/points-granted").then().statusCode(415).contentType(ContentType.JSON)
                .header("Accept-Encoding", "identity")
                .body("error", equalTo("unsupported_media_type"), "field", equalTo("Content-Encoding"),
                        "message", equalTo("Content-Encoding: gzip is not supported; send the JSON uncompressed"));
        // A body that is plain JSON but labelled as compressed is refused the same way: the label is not guessed at.
        given().contentType(ContentType.JSON).header("Content-Encoding", "br").body(grant(UUID.randomUUID(), 1, 10))
                .post("/messages/points-redeemed").then().statusCode(415)
                .body("message", startsWith("Content-Encoding: br is not supported"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
        assertEquals(0, Ledger.totalRows("user_points"), "nothing applied");
        // identity is no coding at all, and a character set declared there is not one either: both are applied.
        for (String notACoding : new String[] { "identity", "UTF-8" }) {
            given().contentType(ContentType.JSON).header("Content-Encoding", notACoding)
                    .body(grant(UUID.randomUUID(), 1, 10)).post("/messages/points-granted").then().statusCode(200)
                    .body("status", equalTo("processed"));
        }
        assertEquals(20, Ledger.balance(CONSUMER, 1));
    }

    @Test
    void aRedemptionPostedToTheGrantEndpointIs400() {
        post(grant(UUID.randomUUID(), 1, 1).replace("PointsGranted.v1", "PointsRedeemed.v1")).statusCode(400)
                .body("field", equalTo("type"));
        assertEquals(0, Ledger.totalRows("inbox_message"), "nothing stored");
    }

    private static io.restassured.response.ValidatableResponse post(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then();
    }
}
