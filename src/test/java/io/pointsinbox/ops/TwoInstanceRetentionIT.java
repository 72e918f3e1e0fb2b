package io.pointsinbox.ops;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.pointsinbox.support.AppProcess;
import io.pointsinbox.support.ArtemisTestResource;
import io.pointsinbox.support.Ledger;
import io.pointsinbox.support.PackagedAppServices;
import io.pointsinbox.support.Workload;

/**
 * Two replicas of the packaged application on one database and one queue, both scheduled to clean the inbox every
 * second: the advisory lock lets one delete at a time (no two delete batches overlap, and a replica whose turn comes
 * while the other deletes skips it), old rows go, recent ones stay, and both keep consuming meanwhile.
 */
class TwoInstanceRetentionIT {

    private static final String CONSUMER = "points-ledger";
    private static final int OLD_ROWS = 150_000;
    private static final int RECENT_ROWS = 1_000;

    /** Small batches make one cleanup run last several seconds, so the other replica's turns fall inside it. */
    @RegisterExtension
    static final PackagedAppServices SERVICES = PackagedAppServices.create().logsIn("retention-it")
            .with("POINTS_RETENTION_CLEANUP_INTERVAL", "1s").with("POINTS_RETENTION_BATCH_SIZE", "100")
            .with("QUARKUS_LOG_CATEGORY__IO_POINTSINBOX_OPS__LEVEL", "DEBUG");

    @Test
    void oneReplicaCleansAtATimeWhileBothConsume() throws Exception {
        AppProcess.start(withCleanupOff(), SERVICES.log("migrate.log")).terminate(Duration.ofSeconds(30));
        Ledger.reset();
        Ledger.execute("insert into inbox_message (id, consumer, message_id, message_type, payload_json,"
                + " payload_hash, outcome, received_at, processed_at) select -g, 'points-ledger', gen_random_uuid(),"
                + " 'PointsGranted.v1', '{}', 'old', 'PROCESSED', now() - interval '30 days', now() - interval"
                + " '30 days' from generate_series(1, " + OLD_ROWS + ") g");
        Ledger.execute("insert into inbox_message (id, consumer, message_id, message_type, payload_json,"
                + " payload_hash, outcome, received_at, processed_at) select -g, 'other-consumer', gen_random_uuid(),"
                + " 'PointsGranted.v1', '{}', 'recent', 'PROCESSED', now() - interval '6 days', now() - interval"
                + " '6 days' from generate_series(" + (OLD_ROWS + 1) + ", " + (OLD_ROWS + RECENT_ROWS) + ") g");

        Workload workload = new Workload(2_000, 0.1, 90_000, 20, 7);
        AppProcess a = startApp("replica-a");
        AppProcess b = startApp("replica-b");
        double deleted;
        double skipped;
        double ran;
        List<Interval> batches;
        try {
            workload.sendAll();
            await("old rows deleted and the stream applied").atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> Ledger.single("select count(*) from inbox_message where payload_hash = 'old'") == 0
                            && Ledger.inboxRows(CONSUMER) == workload.unique()
                            && ArtemisTestResource.pending(ArtemisTestResource.ADDRESS) == 0);
            // Let each replica take a few more turns with nothing left to delete.
            Thread.sleep(2_500);
            deleted = a.metric("points_inbox_retention_deleted_total")
                    + b.metric("points_inbox_retention_deleted_total");
            skipped = a.metric("points_inbox_retention_runs_total", "result=\"skipped\"")
                    + b.metric("points_inbox_retention_runs_total", "result=\"skipped\"");
            ran = a.metric("points_inbox_retention_runs_total", "result=\"ran\"")
                    + b.metric("points_inbox_retention_runs_total", "result=\"ran\"");
        } finally {
            a.terminate(Duration.ofSeconds(30));
            b.terminate(Duration.ofSeconds(30));
        }
        batches = new ArrayList<>(batches("replica-a"));
        batches.addAll(batches("replica-b"));

        assertEquals(RECENT_ROWS, Ledger.single("select count(*) from inbox_message where payload_hash = 'recent'"),
                "rows inside the window are kept");
        assertEquals(OLD_ROWS, deleted, "every old row deleted exactly once, by one replica or the other");
        assertTrue(skipped >= 1, "a replica whose turn came while the other cleaned skipped it");
        assertTrue(batches.size() >= OLD_ROWS / 100, "every batch logged: " + batches.size());
        batches.sort(java.util.Comparator.comparing(Interval::start));
        for (int i = 1; i < batches.size(); i++) {
            assertTrue(!batches.get(i).start().isBefore(batches.get(i - 1).end()),
                    "delete batches overlap: " + batches.get(i - 1) + " and " + batches.get(i));
        }
        workload.assertInvariantHoldsInDatabase(CONSUMER);
        System.out.printf("RETENTION-REPORT | 2 replicas | %d old rows deleted in %d batches, %.0f runs | %.0f turns"
                + " skipped | %d recent rows kept | %d messages applied meanwhile%n", OLD_ROWS, batches.size(), ran,
                skipped, RECENT_ROWS, workload.unique());
    }

    private record Interval(String replica, LocalTime start, LocalTime end) {
    }

    /**
     * Delete batches of one replica, from its log: the line written once the batch holds the lock, and the one
     * written before its commit releases it.
     */
    private static List<Interval> batches(String replica) throws Exception {
        Pattern line = Pattern.compile(
                "^(\\d\\d:\\d\\d:\\d\\d,\\d{3}) .*Inbox cleanup batch (started|deleted)");
        List<Interval> runs = new ArrayList<>();
        LocalTime start = null;
        for (String text : Files.readAllLines(SERVICES.log(replica + ".log"))) {
            Matcher matcher = line.matcher(text);
            if (!matcher.find()) {
                continue;
            }
            LocalTime at = LocalTime.parse(matcher.group(1).replace(',', '.'));
            if (matcher.group(2).equals("started")) {
                start = at;
            } else if (start != null) {
                runs.add(new Interval(replica, start, at));
                start = null;
            }
        }
        assertTrue(!runs.isEmpty(), replica + " logged no delete batch");
        return runs;
    }

    private static Map<String, String> withCleanupOff() {
        Map<String, String> migrate = SERVICES.environment();
        migrate.put("POINTS_RETENTION_ENABLED", "false");
        return migrate;
    }

    private static AppProcess startApp(String name) throws Exception {
        return AppProcess.startReady(SERVICES.environment(), SERVICES.log(name + ".log"));
    }
}
