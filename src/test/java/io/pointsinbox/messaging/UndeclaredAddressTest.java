package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * A broker that creates addresses on demand, as Artemis does with the defaults of {@code artemis create}: neither
 * address is declared. The service must end up reading one queue named after the address, which every replica shares
 * and which keeps what is sent while the service is down, and its dead-letter copies must land in a queue too. Left
 * to the broker's default routing (MULTICAST), each connection would get a subscription of its own, and a message
 * sent during a restart would wait in the old one for ever; a copy sent to a MULTICAST address without a queue would
 * be dropped.
 */
@QuarkusTest
@TestProfile(UndeclaredAddressTest.Undeclared.class)
class UndeclaredAddressTest extends InboxTestBase {

    static final String ADDRESS = "points-undeclared";
    static final String DEAD_LETTER = "DLQ-undeclared";

    public static class Undeclared implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("points.address", ADDRESS, "points.dead-letter-address", DEAD_LETTER);
        }
    }

    @Test
    void addressesTheBrokerCreatesOnDemandAreQueuesNamedAfterThem() throws Exception {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(List.of(ADDRESS),
                ArtemisTestResource.queuesOf(ADDRESS), "one queue on the address, named after it"));
        assertEquals(RoutingType.ANYCAST, ArtemisTestResource.queue(ADDRESS).getRoutingType());
        assertEquals(1, ArtemisTestResource.queue(ADDRESS).getConsumerCount(), "the service reads it");

        // Sent by a client that asks for no routing type, as most do.
        try (AmqpTestClient sender = new AmqpTestClient(ADDRESS)) {
            sender.sendText(grant(UUID.randomUUID(), 7, 10));
            sender.sendText("{not json");
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(10, Ledger.balance(CONSUMER, 7)));
        List<Message> copies = AmqpTestClient.take(DEAD_LETTER, 1, Duration.ofSeconds(10));
        assertEquals(1, copies.size(), "the poison message's copy is on the dead-letter address, not dropped");
        String reason = String.valueOf(copies.get(0).getApplicationProperties().getValue()
                .get(DeadLetters.REASON));
        assertTrue(reason.startsWith("body: malformed JSON"), reason);
        assertEquals(RoutingType.ANYCAST, ArtemisTestResource.queue(DEAD_LETTER).getRoutingType());
        assertEquals(0, ArtemisTestResource.pending(ADDRESS), "nothing left on the address");
    }
}
