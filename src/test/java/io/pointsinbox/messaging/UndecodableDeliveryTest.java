package io.pointsinbox.messaging;

import static io.pointsinbox.support.AmqpTestClient.grant;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.apache.activemq.artemis.core.server.Queue;
import org.junit.jupiter.api.Test;

import io.pointsinbox.support.AmqpTestClient;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.InboxTestBase;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.LogCapture;
import io.pointsinbox.support.MetricsDelta;
import io.pointsinbox.support.RawAmqpMessage;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Deliveries whose bytes are not valid AMQP, sent as a client that writes its own encoding could: the broker accepts
 * them (it decodes the properties, not the body), and the AMQP library under the connector cannot read them. Each one
 * is counted and logged as a warning, the broker keeps it, and the messages after it are applied.
 */
@QuarkusTest
class UndecodableDeliveryTest extends InboxTestBase {

    @Test
    void aDeliveryThatIsNotValidAmqpIsCountedWarnedAboutAndLeftWithTheBroker() {
        MetricsDelta counted = MetricsDelta.start();
        UUID valid = UUID.randomUUID();
        try (LogCapture capture = LogCapture.of(UndecodableDeliveries.class);
                AmqpTestClient sender = AmqpTestClient.toInbox()) {
            List<String> warnings = capture.lines();
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.UNKNOWN_TYPE_CODE));
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.STRING_CUT_SHORT));
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.FOOTER_BEFORE_BODY));
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.HEADER_AFTER_PROPERTIES));
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.APPLICATION_PROPERTIES_AFTER_BODY));
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.ANNOTATIONS_AFTER_SECTIONS));
            sender.send(new RawAmqpMessage(UUID.randomUUID(), RawAmqpMessage.NOT_A_SECTION));
            sender.sendText(grant(valid, 88, 8));

            awaitCounter("undecodable", 7, counted);
            await("the grant sent after them").atMost(Duration.ofSeconds(30))
                    .until(() -> Ledger.balance(CONSUMER, 88) == 8);
            await("seven warnings").atMost(Duration.ofSeconds(10)).until(() -> warnings.size() >= 7);
            assertEquals(7, warnings.size(), "one warning each: " + warnings);
            for (String warning : warnings) {
                assertTrue(warning.startsWith("WARN A delivery on points-granted is not valid AMQP and could not be"
                        + " read ("), warning);
                assertTrue(warning.contains("moves it to its dead-letter address once receivers have failed it"
                        + " max-delivery-attempts times"), warning);
            }

            Queue queue = ArtemisTestResource.queue(ArtemisTestResource.ADDRESS);
            for (String named : List.of("a section (code 0x75) after the footer, which AMQP puts last",
                    "a header section (code 0x70) after the properties section, which AMQP puts before it",
                    "an application-properties section (code 0x74) after the body, which AMQP puts before it",
                    "a message-annotations section (code 0x72) after the body, which AMQP puts before it")) {
                assertTrue(warnings.stream().anyMatch(w -> w.contains("(SectionOrderException: " + named + ")")),
                        "named whole: " + named + " in " + warnings);
            }
            // Worded by the service: the JVM drops the message of an exception it has thrown often from one place
            // (the suite's other tests send such messages too).
            assertTrue(warnings.stream().anyMatch(w -> w.contains("(ClassCastException: a value that is not a section,"
                    + " where AMQP puts one)")), "a value that is not a section, where one belongs: " + warnings);
            await("all seven kept by the broker, settled").atMost(Duration.ofSeconds(10))
                    .until(() -> queue.getMessageCount() == 7 && queue.getDeliveringCount() == 0);
            assertEquals(1, ArtemisTestResource.highestDeliveryCount(ArtemisTestResource.ADDRESS),
                    "handed back as a failed delivery: counted by the broker");
            assertEquals(0, deadLettered(), "not copied by the service, which never had their bytes");
            assertEquals(0, counted.messages(CONSUMER, "failed"));
            assertEquals(1, counted.messages(CONSUMER, "processed"));
            assertEquals(0, Ledger.inboxRows(CONSUMER) - 1, "only the valid grant claimed an inbox row");
            given().get("/q/health/ready").then().statusCode(200);
        } finally {
            try {
                ArtemisTestResource.purge(ArtemisTestResource.ADDRESS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
