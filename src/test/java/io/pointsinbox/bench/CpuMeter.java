package io.pointsinbox.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time spent by each party of a run, read from /proc (Linux): named processes (the service, the broker), every
 * PostgreSQL process (with those it reaped, such as the backends of closed connections), and this JVM's reaped
 * children (pgbench). Tells where a machine's cores went, which a throughput figure alone does not.
 */
final class CpuMeter {

    static final String POSTGRES = "postgres";
    static final String CHILDREN = "pgbench client";

    /** Clock ticks per second of /proc/[pid]/stat; 100 on Linux for x86-64 and arm64. */
    private static final double TICKS_PER_SECOND = 100;

    private final Map<String, Long> processes;
    private final Map<String, Long> start;

    private CpuMeter(Map<String, Long> processes) {
        this.processes = processes;
        this.start = snapshot();
    }

    /** Starts counting; {@code processes} names the processes to charge, by party. */
    static CpuMeter start(Map<String, Long> processes) {
        return new CpuMeter(processes);
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
        processes.forEach((party, pid) -> {
            long[] stat = stat(Path.of("/proc", String.valueOf(pid), "stat"));
            ticks.put(party, stat[0] + stat[1]);
        });
        long[] self = stat(Path.of("/proc/self/stat"));
        ticks.put(CHILDREN, self[2] + self[3]);
        long postgres = 0;
        try (DirectoryStream<Path> all = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : all) {
                try {
                    if (POSTGRES.equals(Files.readString(process.resolve("comm")).strip())) {
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
        ticks.put(POSTGRES, postgres);
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
