package io.pointsinbox.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The benchmark's CPU split must charge CPU time to the party that spent it. */
class CpuMeterTest {

    @Test
    void chargesANamedProcessesCpuTimeToItsParty() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "reads /proc (Linux)");
        CpuMeter meter = CpuMeter.start(Map.of("broker", ProcessHandle.current().pid()));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + 400_000_000L;
        long spin = 0;
        while (threads.getCurrentThreadCpuTime() < until) {
            spin += System.nanoTime() % 7;
        }
        Map<String, Double> spent = meter.seconds();

        assertEquals(Set.of("broker", CpuMeter.CHILDREN, CpuMeter.POSTGRES), spent.keySet(),
                "the named party, the reaped children and PostgreSQL; spin " + spin);
        // 0.4 s of this thread's CPU time, counted in ticks of 10 ms.
        assertTrue(spent.get("broker") >= 0.38, "this JVM's CPU time: " + spent);
        assertTrue(spent.get("postgres") >= 0, "PostgreSQL's CPU time never goes backwards: " + spent);
    }

    @Test
    void chargesAServiceProcessToTheServiceParty() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "reads /proc (Linux)");
        // Busy until destroyed: a child that finished on its own before the second reading would have no /proc entry.
        Process busy = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
        Map<String, Double> spent;
        try {
            CpuMeter meter = CpuMeter.start(Map.of("service", busy.pid()));
            Thread.sleep(300);
            spent = meter.seconds();
        } finally {
            busy.destroyForcibly();
        }

        assertTrue(spent.get("service") > 0.05, "the busy child's CPU time counts for the service: " + spent);
    }
}
