package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * How deliveries run is said once at start-up, and the first delivery on Java 17 (the JDK the tests run on by
 * default) does not make Quarkus warn that it could not create virtual threads: that is the expected behaviour of a
 * supported JDK, not a fault to check.
 */
@QuarkusTest
@TestProfile(DeliveryThreadsTest.FreshApplication.class)
class DeliveryThreadsTest extends InboxTestBase {

    /** An application of its own, so that the delivery below is its first. */
    public static class FreshApplication implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of();
        }
    }

    @Test
    void theFirstDeliveryLogsNoWarningAboutVirtualThreads() throws Exception {
        try (LogCapture fallback = LogCapture.of(DeliveryThreads.FALLBACK_CATEGORY)) {
            UUID id = UUID.randomUUID();
            try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
                sender.sendText(grant(id, 611, 6));
            }
            await("applied").atMost(Duration.ofSeconds(30)).until(() -> Ledger.balance(CONSUMER, 611) == 6);
            assertEquals(List.of(), fallback.lines(), "Quarkus's virtual-thread fallback on Java "
                    + Runtime.version().feature());
        }
    }

    @Test
    void theStartUpLineSaysWhereDeliveriesRun() {
        assertEquals("Consuming channel points-granted as consumer 'points-service': up to 8 deliveries at once, on"
                + " Quarkus's worker threads (Java 17; virtual threads need Java 21 or later)",
                DeliveryThreads.line(17, "points-service", 8));
        assertEquals("Consuming channel points-granted as consumer 'points-service': up to 16 deliveries at once,"
                + " each on a virtual thread", DeliveryThreads.line(25, "points-service", 16));
    }
}
