package io.pointsinbox.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time spent by each party of a run, read from /proc (Linux): the service, this JVM (the embedded broker and the
 * sender), PostgreSQL (its processes and those it reaped, such as the backends of closed connections) and the
 * children this JVM reaped (pgbench). Tells where a machine's cores went, which a throughput figure alone does not.
 */
final class CpuMeter {

    /** Clock ticks per second of /proc/[pid]/stat; 100 on Linux for x86-64 and arm64. */
    private static final double TICKS_PER_SECOND = 100;

    private final long servicePid;
    private final Map<String, Long> start;

    private CpuMeter(long servicePid) {
        this.servicePid = servicePid;
        this.start = snapshot();
    }

    /** Starts counting; {@code servicePid} is the application's process, or -1 when none runs (pgbench). */
    static CpuMeter start(long servicePid) {
        return new CpuMeter(servicePid);
    }

    /** CPU seconds spent by each party since {@link #start}; empty where /proc cannot be read. */
    Map<String, Double> seconds() {
        Map<String, Long> end = snapshot();
        Map<String, Double> spent = new LinkedHashMap<>();
        end.forEach((party, ticks) -> spent.put(party, (ticks - start.getOrDefault(party, 0L)) / TICKS_PER_SECOND));
        return spent;
    }

    private Map<String, Long> snapshot() {
        Map<String, Long> ticks = new LinkedHashMap<>();
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return ticks;
        }
        long[] self = stat(Path.of("/proc/self/stat"));
        if (servicePid > 0) {
            long[] service = stat(Path.of("/proc", String.valueOf(servicePid), "stat"));
            ticks.put("service", service[0] + service[1]);
        }
        ticks.put("broker and sender", self[0] + self[1]);
        ticks.put("reaped children (pgbench)", self[2] + self[3]);
        long postgres = 0;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                try {
                    if ("postgres".equals(Files.readString(process.resolve("comm")).strip())) {
                        long[] pg = stat(process.resolve("stat"));
                        postgres += pg[0] + pg[1] + pg[2] + pg[3];
                    }
                } catch (IOException | RuntimeException gone) {
                    // The process ended between the listing and the read: its parent's reaped time counts it.
                }
            }
        } catch (IOException e) {
            return ticks;
        }
        ticks.put("postgres", postgres);
        return ticks;
    }

    /** utime, stime, cutime, cstime of one process. */
    private static long[] stat(Path stat) {
        try {
            String line = Files.readString(stat);
            // Fields after the command name, which may hold spaces: state is field 3, utime field 14.
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return new long[] { Long.parseLong(fields[11]), Long.parseLong(fields[12]), Long.parseLong(fields[13]),
                    Long.parseLong(fields[14]) };
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + stat, e);
        }
    }
}
