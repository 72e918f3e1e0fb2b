package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.DeadLetterLink;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.Metrics;
import io.pointsinbox.support.MetricsDelta;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * A poison message whose dead-letter copy the broker never confirms (here: the dead-letter link frozen, as on a
 * network path that drops packets; in the wild also the connector's sender closed under it while reconnecting)
 * must neither hold its worker until the transaction timeout nor stay unsettled: it is handed back, and
 * dead-lettered once the link works again.
 */
@QuarkusTest
@TestProfile(DeadLetterLink.PerMessage.class)
class DeadLetterUnconfirmedTest extends InboxTestBase {

    private static final String MALFORMED = "body: malformed JSON";

    @AfterEach
    void mendTheLink() throws Exception {
        DeadLetterLink.proxy().thaw();
        DeadLetterLink.proxy().restore();
    }

    @Test
    void poisonWhoseDeadLetterCopyIsNotConfirmedIsHandedBackAndDeadLetteredWhenTheLinkRecovers() throws Exception {
        UUID valid = UUID.randomUUID();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            deadLetterOneOverTheWorkingLink(sender);

            MetricsDelta counted = MetricsDelta.start();
            double redeliveredBefore = redelivered();
            DeadLetterLink.proxy().freeze();
            long frozenAt = System.nanoTime();
            sender.sendText("{second, while the link is frozen");
            sender.sendText(grant(valid, 909, 5));

            await("the unconfirmed dead-letter copy hands the poison back for redelivery")
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> counted.deadLetterUnconfirmed() > 0 && redelivered() > redeliveredBefore);
            Duration handedBackAfter = Duration.ofNanos(System.nanoTime() - frozenAt);
            // Bounded by the dead-letter timeout (2 s), well below the 60 s transaction timeout.
            assertTrue(handedBackAfter.compareTo(Duration.ofSeconds(20)) < 0,
                    "handed back after " + handedBackAfter);
            awaitCounter("processed", 1, counted);
            assertEquals(0, deadLettered(), "nothing reaches the dead-letter address over the frozen link");
            DeadLetterLink.proxy().thaw();
        }
        await("poison dead-lettered once the link recovers").atMost(Duration.ofSeconds(30))
                .until(() -> deadLettered() >= 1);
        awaitDrained();

        // The copy that was not confirmed in time may arrive beside the confirmed one; after its attempts the
        // broker itself may move the original (without a reason). Never lost, at least once.
        List<String> reasons = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON);
        assertTrue(reasons.stream().anyMatch(reason -> reason != null && reason.startsWith(MALFORMED)),
                "a dead-letter copy with its reason in " + reasons);
        assertTrue(reasons.stream().allMatch(reason -> reason == null || reason.startsWith(MALFORMED)),
                "only the poison message was dead-lettered: " + reasons);
        assertTrue(reasons.size() <= ArtemisTestResource.MAX_DELIVERY_ATTEMPTS + 1,
                "at most one copy per attempt plus the broker's: " + reasons);
        assertEquals(5, Ledger.balance(CONSUMER, 909), "the valid message was applied once");
        assertEquals(1, Ledger.totalRows("inbox_message"), "nothing stored for the poison message");
        assertNothingUnacknowledged();
    }

    @Test
    void poisonArrivingWhileTheDeadLetterLinkIsCutIsHandedBackAndDeadLetteredAfterItReconnects() throws Exception {
        UUID valid = UUID.randomUUID();
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            deadLetterOneOverTheWorkingLink(sender);

            MetricsDelta counted = MetricsDelta.start();
            DeadLetterLink.proxy().cut();
            sender.sendText("{second, while the link is cut");
            sender.sendText(grant(valid, 910, 7));
            // Whether the connector fails the send or never answers it, the attempt ends within the bound.
            await("the dead-letter copy that cannot be sent hands the poison back")
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> counted.deadLetterUnconfirmed() > 0);
            awaitCounter("processed", 1, counted);
            DeadLetterLink.proxy().restore();
        }
        await("poison dead-lettered once the link is back").atMost(Duration.ofSeconds(45))
                .until(() -> deadLettered() >= 1);
        awaitDrained();

        List<String> reasons = ArtemisTestResource.browse(ArtemisTestResource.DEAD_LETTER, DeadLetters.REASON);
        assertTrue(reasons.stream().allMatch(reason -> reason == null || reason.startsWith(MALFORMED)),
                "only the poison message was dead-lettered: " + reasons);
        assertEquals(7, Ledger.balance(CONSUMER, 910), "the valid message was applied once");
        assertEquals(1, Ledger.totalRows("inbox_message"), "nothing stored for the poison message");
        assertNothingUnacknowledged();
    }

    /** The link is up and carries a dead letter before the test breaks it. */
    private static void deadLetterOneOverTheWorkingLink(AmqpTestClient sender) throws Exception {
        sender.sendText("{first, while the link works");
        await("poison dead-lettered over the working link").atMost(Duration.ofSeconds(30))
                .until(() -> deadLettered() == 1);
        awaitDrained();
        ArtemisTestResource.purge(ArtemisTestResource.DEAD_LETTER);
    }


    private static double redelivered() {
        return Metrics.series("points_inbox_redelivered_total");
    }
}
