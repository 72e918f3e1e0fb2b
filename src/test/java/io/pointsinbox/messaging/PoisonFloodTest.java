package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.ParallelSenders;
import io.pointsinbox.support.PostgresTestDatabase;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@QuarkusTestResource(ArtemisTestResource.class)
@QuarkusTestResource(PostgresTestDatabase.class)
class PoisonFloodTest extends InboxTestBase {

    @Test
    void aThousandMalformedAmongFiveThousandValidAreAllDeadLetteredAndTheChannelNeverStops() throws Exception {
        int valid = 5_000;
        int poison = 1_000;
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < valid; i++) {
            messages.add(grant(UUID.randomUUID(), 7_000 + i % 50, 1));
        }
        for (int i = 0; i < poison; i++) {
            messages.add(switch (i % 4) {
                case 0 -> "{broken " + i;
                case 1 -> grant(UUID.randomUUID(), 7_000, -i - 1);
                case 2 -> grant(UUID.randomUUID(), 7_000, 1).replace("PointsGranted.v1", "Unknown.v" + i);
                default -> "{\"type\":\"PointsGranted.v1\",\"payload\":{\"userId\":7000,\"amount\":1}}";
            });
        }
        Collections.shuffle(messages);
        ParallelSenders.split(messages, 4);
        await("flood drained").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(500))
                .until(() -> ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
        await("all dead-lettered").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() >= poison);

        assertEquals(poison, deadLettered(), "every malformed message dead-lettered, once");
        assertEquals(valid, Ledger.totalRows("inbox_message"), "every valid message claimed");
        assertEquals(valid, Ledger.single("select coalesce(sum(balance), 0) from user_points"),
                "every valid message applied");
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        assertNothingUnacknowledged();
    }
}
