package io.pointsinbox.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.pointsinbox.support.Ledger;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The lookup of a duplicate's original must stay one index probe per id however the inbox grows after its plan was
 * made. PostgreSQL builds a prepared statement's generic plan once per connection and keeps it until something
 * invalidates it (an ANALYZE, a schema change): a plan made while the table was small, or had no statistics, must
 * not turn into a scan of every row of the consumer once it holds thousands.
 */
@QuarkusTest
class InboxPlanTest {

    private static final String SCHEMA = "inbox_plan_probe";

    @Test
    void aDuplicatesOriginalIsReadByItsKeyEvenWithAPlanMadeWhenTheTableWasSmall() throws SQLException {
        String plan = planOnceGrown(InboxGuard.ORIGINALS, ids -> "('" + ids + "'::uuid[], 'points-ledger')", 3);

        assertTrue(plan.contains("message_id = k.message_id"), "each id probes the unique index:\n" + plan);
        assertFalse(plan.contains("Rows Removed by Filter"), "no row read and thrown away:\n" + plan);
        assertTrue(buffers(plan) < 100, "a few index pages per id, not the table:\n" + plan);
    }

    @Test
    void aPerMessageDuplicatesOriginalIsReadByItsKeyEvenWithAPlanMadeWhenTheTableWasSmall() throws SQLException {
        String plan = planOnceGrown(InboxGuard.ORIGINAL,
                ids -> "('points-ledger', '" + ids.replaceAll("[{}]", "").split(",")[0] + "'::uuid)", 1);

        assertTrue(plan.contains("Index Scan using inbox_message_consumer_message_id_key"),
                "the id probes the unique index:\n" + plan);
        assertFalse(plan.contains("Rows Removed by Filter"), "no row read and thrown away:\n" + plan);
        assertTrue(buffers(plan) < 20, "a few index pages, not the table:\n" + plan);
    }

    /**
     * Prepares the lookup with the plan a long-lived pooled connection would keep (generic, made on a table of 20
     * rows), grows the table to 20,000 and returns that same plan, executed; checks on both sides that the lookup
     * finds what it should.
     *
     * @param arguments the EXECUTE arguments, given three ids of the table as a uuid array literal
     */
    private static String planOnceGrown(String lookup, Function<String, String> arguments, int found)
            throws SQLException {
        try (Connection connection = Ledger.connection(); Statement statement = connection.createStatement()) {
            statement.execute("drop schema if exists " + SCHEMA + " cascade");
            statement.execute("create schema " + SCHEMA);
            try {
                statement.execute("create table " + SCHEMA + ".inbox_message (like public.inbox_message including all)");
                statement.execute("set search_path = " + SCHEMA);
                insertRows(statement, 1, 20);
                String execute = "execute lookup" + arguments.apply(ids(statement));
                statement.execute("set plan_cache_mode = force_generic_plan");
                statement.execute("prepare lookup as " + numbered(lookup));
                assertEquals(found, count(statement, execute), "found on the small table");

                insertRows(statement, 21, 20_000);
                String plan = String.join("\n", lines(statement, "explain (analyze, buffers) " + execute));
                assertEquals(found, count(statement, execute), "found on the grown table");
                return plan;
            } finally {
                statement.execute("deallocate all");
                statement.execute("reset search_path");
                statement.execute("drop schema " + SCHEMA + " cascade");
            }
        }
    }

    private static void insertRows(Statement statement, int from, int to) throws SQLException {
        statement.execute("insert into inbox_message (id, consumer, message_id, message_type, payload_json, "
                + "payload_hash, outcome, received_at) select g, 'points-ledger', gen_random_uuid(), "
                + "'PointsGranted.v1', '{}', 'hash', 'PROCESSED', now() from generate_series(" + from + ", " + to
                + ") g");
    }

    private static String ids(Statement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery(
                "select array_agg(message_id)::text from (select message_id from inbox_message limit 3) s")) {
            rows.next();
            return rows.getString(1);
        }
    }

    /** JDBC's positional markers as the numbered parameters of a server-side PREPARE. */
    private static String numbered(String sql) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char c : sql.toCharArray()) {
            if (c == '?') {
                out.append('$').append(++n);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static int count(Statement statement, String sql) throws SQLException {
        int count = 0;
        try (ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                count++;
            }
        }
        return count;
    }

    private static List<String> lines(Statement statement, String sql) throws SQLException {
        List<String> lines = new ArrayList<>();
        try (ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                lines.add(rows.getString(1));
            }
        }
        return lines;
    }

    /** Shared buffers the top plan node touched. */
    private static int buffers(String plan) {
        Matcher shared = Pattern.compile("Buffers: shared((?: \\w+=\\d+)+)").matcher(plan);
        if (!shared.find()) {
            throw new AssertionError("no buffer counts in\n" + plan);
        }
        int touched = 0;
        Matcher count = Pattern.compile("(hit|read)=(\\d+)").matcher(shared.group(1));
        while (count.find()) {
            touched += Integer.parseInt(count.group(2));
        }
        return touched;
    }
}
