package io.pointsinbox.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/**
 * The API description a user reads in Swagger UI: a token entered under "Authorize" is sent to every protected
 * operation, every documented response carries an example, and the request body is the envelope, not a string.
 */
@QuarkusTest
class OpenApiDocumentTest {

    private static final Set<String> PROTECTED = Set.of("/messages/points-granted", "/messages/points-redeemed",
            "/admin/reconciliation");
    private static String text;
    private static Map<String, Object> document;

    @BeforeEach
    void load() {
        if (document == null) {
            text = given().get("/q/openapi?format=json").then().statusCode(200).extract().asString();
            document = JsonPath.from(text).getMap("$");
        }
    }

    @Test
    void aBearerSchemeExistsAndEveryProtectedOperationRequiresIt() {
        Map<String, Object> scheme = map(map(map(document.get("components")).get("securitySchemes")).get("bearer"));
        assertEquals("http", scheme.get("type"));
        assertEquals("bearer", scheme.get("scheme"));
        for (String path : PROTECTED) {
            for (Map.Entry<String, Object> operation : operations(path).entrySet()) {
                Object security = map(operation.getValue()).get("security");
                assertTrue(security instanceof List<?> list && list.stream()
                        .anyMatch(requirement -> map(requirement).containsKey("bearer")),
                        operation.getKey() + " " + path + " requires no bearer token: " + security);
            }
        }
    }

    @Test
    void everyDocumentedResponseOfEveryOperationHasAnExample() {
        List<String> missing = new ArrayList<>();
        int responses = 0;
        for (String path : paths()) {
            for (Map.Entry<String, Object> operation : operations(path).entrySet()) {
                for (Map.Entry<String, Object> response : map(map(operation.getValue()).get("responses")).entrySet()) {
                    responses++;
                    if (!hasExample(resolve(map(response.getValue())))) {
                        missing.add(operation.getKey() + " " + path + " " + response.getKey());
                    }
                }
            }
        }
        assertTrue(responses >= 20, "documented responses: " + responses);
        assertEquals(List.of(), missing, "responses without an example");
    }

    @Test
    void theWriteOperationsDocumentEveryStatusTheyAnswer() {
        Set<String> expected = Set.of("200", "400", "401", "403", "409", "413", "415");
        for (String path : List.of("/messages/points-granted", "/messages/points-redeemed")) {
            Set<String> documented = new TreeSet<>(map(operations(path).get("post")).get("responses") instanceof Map<?, ?> m
                    ? map(m).keySet() : Set.of());
            assertTrue(documented.containsAll(expected), path + " documents " + documented);
        }
        assertTrue(map(map(operations("/messages/points-redeemed").get("post")).get("responses")).containsKey("422"));
    }

    @Test
    void theRequestBodyIsTheEnvelopeWithAnExample() {
        for (String path : List.of("/messages/points-granted", "/messages/points-redeemed")) {
            Map<String, Object> json = map(map(map(map(operations(path).get("post")).get("requestBody"))
                    .get("content")).get("application/json"));
            assertEquals("#/components/schemas/Envelope", map(json.get("schema")).get("$ref"), path);
            assertFalse(map(json.get("examples")).isEmpty(), path + " has no request example");
        }
        Map<String, Object> envelope = map(map(map(document.get("components")).get("schemas")).get("Envelope"));
        assertEquals(List.of("messageId", "type", "payload"), envelope.get("required"));
    }

    @Test
    void summariesSayWhatTheOperationDoesAndTheContractIsExactlyOnceInEffect() {
        for (String path : paths()) {
            for (Map.Entry<String, Object> operation : operations(path).entrySet()) {
                String summary = String.valueOf(map(operation.getValue()).get("summary"));
                assertTrue(summary.split(" ").length >= 4, operation.getKey() + " " + path + ": '" + summary + "'");
            }
        }
        assertFalse(text.toLowerCase(java.util.Locale.ROOT).contains("at most once"), "the contract is exactly once");
        assertTrue(text.contains("exactly once in effect"));
    }

    /** The application's own paths (not Quarkus's /q endpoints). */
    private static Set<String> paths() {
        Set<String> paths = new TreeSet<>(map(document.get("paths")).keySet());
        paths.removeIf(path -> path.startsWith("/q/"));
        assertTrue(paths.containsAll(PROTECTED) && paths.contains("/users/{userId}/points"), "paths " + paths);
        return paths;
    }

    private static Map<String, Object> operations(String path) {
        Map<String, Object> operations = new java.util.TreeMap<>(map(map(document.get("paths")).get(path)));
        operations.keySet().retainAll(Set.of("get", "post", "put", "delete", "patch"));
        return operations;
    }

    private static Map<String, Object> resolve(Map<String, Object> response) {
        Object ref = response.get("$ref");
        if (ref == null) {
            return response;
        }
        String name = String.valueOf(ref).substring("#/components/responses/".length());
        return map(map(map(document.get("components")).get("responses")).get(name));
    }

    private static boolean hasExample(Map<String, Object> response) {
        Object content = response.get("content");
        if (!(content instanceof Map<?, ?>)) {
            return false;
        }
        return map(content).values().stream().map(OpenApiDocumentTest::map)
                .anyMatch(media -> media.get("example") != null
                        || media.get("examples") instanceof Map<?, ?> examples && !examples.isEmpty());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> ? (Map<String, Object>) value : Map.of();
    }
}
