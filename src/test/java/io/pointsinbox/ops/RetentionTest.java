package io.pointsinbox.ops;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.pointsinbox.messaging.DeadLetters;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.PostgresTestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.amqp.AmqpMessage;

@QuarkusTest
class RetentionTest extends InboxTestBase {

    @Inject
    InboxRetention retention;

    @Test
    void rowsOlderThanTheWindowAreDeletedInBatchesAndNewerOnesKept() {
        for (int i = 0; i < 25; i++) {
            post(grant(UUID.randomUUID(), 9_100 + i, 1));
        }
        // Age 20 messages as a whole: their inbox rows and their ledger entries were written together.
        Ledger.execute("update inbox_message set received_at = now() - interval '8 days'"
                + " where id in (select id from inbox_message order by id limit 20)");
        Ledger.execute("update point_grant g set granted_at = now() - interval '8 days' from inbox_message i"
                + " where i.message_id = g.message_id and i.received_at < now() - interval '7 days'");

        InboxRetention.Run run = retention.cleanup(Instant.now().minus(Duration.ofDays(7)));

        assertTrue(run.ran(), "this replica held the lock");
        assertEquals(20, run.deleted(), "the 20 aged rows deleted");
        assertEquals(5, Ledger.totalRows("inbox_message"), "the 5 recent rows kept");
        assertEquals(25, Ledger.totalRows("point_grant"), "ledger entries are never deleted");
        // Entries whose inbox row aged out are not violations.
        given().get("/admin/reconciliation").then().statusCode(200).body("consistent", equalTo(true));
    }

    @Test
    void twoCleanersNeverRunAtOnce() throws Exception {
        try (Connection other = DriverManager.getConnection(
                System.getProperty(PostgresTestDatabase.DIRECT_URL), System.getProperty("quarkus.datasource.username"),
                System.getProperty("quarkus.datasource.password", ""));
                Statement statement = other.createStatement()) {
            statement.execute("select pg_advisory_lock(" + InboxRetention.LOCK_KEY + ")");
            InboxRetention.Run whileHeld = retention.cleanup(Instant.now());
            assertFalse(whileHeld.ran(), "a second cleaner skips while another holds the lock");
            statement.execute("select pg_advisory_unlock(" + InboxRetention.LOCK_KEY + ")");
        }
        assertTrue(retention.cleanup(Instant.now().minus(Duration.ofDays(7))).ran(), "runs once the lock is free");
    }

    @Test
    void aMessageOlderThanTheWindowIsDeadLetteredAsTooOld() {
        MetricsDelta counted = MetricsDelta.start();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.send(AmqpMessage.create().withBody(grant(UUID.randomUUID(), 9_200, 5)).durable(true)
                    .creationTime(Instant.now().minus(Duration.ofDays(8)).toEpochMilli()).build());
        }
        await("dead-lettered").atMost(Duration.ofSeconds(30)).until(() -> deadLettered() == 1);
        String reason = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON).get(0);
        assertTrue(reason.startsWith("too_old: created ") && reason.endsWith(
                ", before the inbox retention window of 7d (POINTS_RETENTION_WINDOW)"), "reason too_old: " + reason);
        assertEquals(1, counted.messages(CONSUMER, "too_old"), "counted");
        assertEquals(1, counted.timed(CONSUMER, "too_old"), "timed");
        assertEquals(0, Ledger.totalRows("inbox_message"), "not applied");
    }

    private static void post(String body) {
        given().contentType(ContentType.JSON).body(body).post("/messages/points-granted").then().statusCode(200);
    }
}
