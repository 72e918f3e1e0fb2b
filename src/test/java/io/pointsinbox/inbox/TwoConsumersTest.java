package io.pointsinbox.inbox;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import org.junit.jupiter.api.Test;

import io.pointsinbox.contract.EnvelopeReader;
import io.pointsinbox.contract.PointsEnvelope;
import io.pointsinbox.points.PointsMessageHandler;
import io.pointsinbox.points.ProcessingResult;
import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.quarkus.test.junit.QuarkusTest;

/** The consumer name is half of the key: a second logical consumer on the same database applies a message once too. */
@QuarkusTest
class TwoConsumersTest extends InboxTestBase {

    private static final String AUDIT = "points-audit";

    @Inject
    TransactionalDelivery delivery;

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
        ProcessingResult first = delivery.deliver(AUDIT, envelope);
        ProcessingResult second = delivery.deliver(AUDIT, envelope);
        awaitDrained();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> Ledger.inboxRows(CONSUMER, id) == 1);

        assertEquals(ProcessingResult.Status.FIRST_DELIVERY, first.status(), "first delivery to the audit consumer");
        assertEquals(ProcessingResult.Status.DUPLICATE_IGNORED, second.status(), "second delivery to the audit consumer");
        assertEquals(30, Ledger.balance(CONSUMER, 909), "the ledger consumer applied it once");
        assertEquals(30, Ledger.balance(AUDIT, 909), "the audit consumer applied it once");
        assertEquals(1, Ledger.inboxRows(CONSUMER, id), "one inbox row for the ledger consumer");
        assertEquals(1, Ledger.inboxRows(AUDIT, id), "one inbox row for the audit consumer");
        assertEquals(2, Ledger.totalRows("point_grant"), "one grant per consumer");
    }

    /** Delivers to the handler in a transaction of its own, as an adapter of another logical consumer would. */
    @ApplicationScoped
    static class TransactionalDelivery {
        @Inject
        PointsMessageHandler handler;

        @Transactional
        ProcessingResult deliver(String consumer, PointsEnvelope envelope) {
            return handler.handle(consumer, envelope);
        }
    }
}
