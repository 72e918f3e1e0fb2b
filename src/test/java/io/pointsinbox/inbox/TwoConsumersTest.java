package io.pointsinbox.inbox;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.pointsinbox.messaging.EnvelopeReader;
import io.pointsinbox.messaging.PointsEnvelope;
import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.points.ProcessingResult;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PostgresTestDatabase;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/** The consumer name is half of the key: a second logical consumer on the same database applies a message once too. */
@QuarkusTest
@QuarkusTestResource(ArtemisTestResource.class)
@QuarkusTestResource(PostgresTestDatabase.class)
class TwoConsumersTest extends InboxTestBase {

    private static final String AUDIT = "points-audit";

    @Inject
    PointsMessageHandler handler;

    @Inject
    EnvelopeReader reader;

    @Test
    void twoLogicalConsumersSharingOneDatabaseEachApplyTheMessageOnce() {
        UUID id = UUID.randomUUID();
        String body = grant(id, 909, 30);
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendText(body);
            sender.sendText(body);
        }
        PointsEnvelope envelope = reader.read(body.getBytes(StandardCharsets.UTF_8), null);
        ProcessingResult first = QuarkusTransaction.requiringNew().call(() -> handler.handle(AUDIT, envelope));
        ProcessingResult second = QuarkusTransaction.requiringNew().call(() -> handler.handle(AUDIT, envelope));
        awaitDrained();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> Ledger.inboxRows(CONSUMER, id) == 1);

        assertEquals(ProcessingResult.Status.PROCESSED, first.status(), "first delivery to the audit consumer");
        assertEquals(ProcessingResult.Status.DUPLICATE_IGNORED, second.status(), "second delivery to the audit consumer");
        assertEquals(30, Ledger.balance(CONSUMER, 909), "the ledger consumer applied it once");
        assertEquals(30, Ledger.balance(AUDIT, 909), "the audit consumer applied it once");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row for the ledger consumer");
        assertEquals(1, Ledger.inboxRows(AUDIT, id), "one inbox row for the audit consumer");
        assertEquals(2, Ledger.totalRows("point_grant"), "one grant per consumer");
    }
}
