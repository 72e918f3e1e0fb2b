package io.pointsinbox.support;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A stream of grants with a share of duplicates, and the state it must leave behind whatever faults happen on the
 * way: the invariant every fault scenario checks.
 */
public final class Workload {

    private final List<String> messages = new ArrayList<>();
    private final Map<Long, Long> expectedBalances = new TreeMap<>();
    private final int unique;

    public Workload(int unique, double duplicateShare, long firstUser, int users, long seed) {
        this.unique = unique;
        Random random = new Random(seed);
        List<String> distinct = new ArrayList<>();
        for (int i = 0; i < unique; i++) {
            long user = firstUser + random.nextInt(users);
            long amount = 1 + random.nextInt(10);
            distinct.add(AmqpTestClient.grant(UUID.randomUUID(), user, amount));
            expectedBalances.merge(user, amount, Long::sum);
        }
        messages.addAll(distinct);
        for (int i = 0; i < Math.round(unique * duplicateShare); i++) {
            messages.add(distinct.get(random.nextInt(unique)));
        }
        Collections.shuffle(messages, random);
    }

    public List<String> messages() {
        return messages;
    }

    /** Each user's balance once every unique message has been applied exactly once. */
    public Map<Long, Long> expectedBalances() {
        return Collections.unmodifiableMap(expectedBalances);
    }

    public int unique() {
        return unique;
    }

    public int duplicates() {
        return messages.size() - unique;
    }

    public void sendAll() {
        try (AmqpTestClient sender = AmqpTestClient.toInbox()) {
            sender.sendAll(messages);
        }
    }

    /** Nothing lost, nothing doubled, nothing left on the broker, and the operators' check agrees. */
    public void assertInvariantHolds(String consumer) {
        assertInvariantHoldsInDatabase(consumer);
        given().get("/admin/reconciliation").then().statusCode(200).body("consistent", equalTo(true));
    }

    /** Unique messages with no inbox row: lost. Read from the database, not assumed. */
    public long lost(String consumer) {
        return unique - Ledger.inboxRows(consumer);
    }

    /** Ledger entries beyond one per unique message: applied twice. Read from the database, not assumed. */
    public long doubled() {
        return Ledger.totalRows("point_grant") - unique;
    }

    /** The invariant as the database and the broker show it. */
    public void assertInvariantHoldsInDatabase(String consumer) {
        expectedBalances.forEach((user, expected) -> assertEquals(expected, Ledger.balance(consumer, user),
                "balance of user " + user + " (lost or doubled messages otherwise)"));
        assertEquals(unique, Ledger.inboxRows(consumer), "one inbox row per unique message id");
        assertEquals(unique, Ledger.totalRows("point_grant"), "one ledger entry per unique message id");
        assertEquals(0, ArtemisTestResource.queue(ArtemisTestResource.DEAD_LETTER).getMessageCount(),
                "no valid message dead-lettered");
        assertEquals(0, ArtemisTestResource.pending(ArtemisTestResource.ADDRESS), "nothing left unacknowledged");
    }
}
