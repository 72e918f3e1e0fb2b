#!/usr/bin/env bash
# Benchmark: the packaged application against pgbench running the same transaction, on this machine.
# Options (environment): MESSAGES (20000), CONCURRENCY (4,8,16; empty:
# only batched mode with BATCH_WORKERS), DUPLICATES (0,0.2), REPEATS (3),
# WARMUP (60000 distinct messages queued twice ahead of each measured stream, not counted; 0 measures a cold JVM),
# CLEANUP_ROWS (1000000 expired inbox rows for the cleanup comparison; 0 skips it), BATCHED (true: batched mode
# too, at each concurrency and with BATCH_WORKERS=64 workers), APP_JVM_OPTIONS (extra options for the application),
# BASELINE_APP (the target/quarkus-app directory of another build, e.g. a worktree of an earlier commit: every
# application stream is drained by both builds in the same repeat, in alternating order, and compared).
# Results: target/bench/results.md, target/bench/throughput.png, target/bench/metrics-after-storm.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v pgbench >/dev/null || { echo "pgbench is required (Debian: postgresql-client)" >&2; exit 1; }
./mvnw -q -B -ntp package -DskipTests
./mvnw -q -B -ntp dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath
java -Xmx1g -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" \
    -Dbench.messages="${MESSAGES:-20000}" -Dbench.concurrency="${CONCURRENCY-4,8,16}" \
    -Dbench.duplicates="${DUPLICATES:-0,0.2}" -Dbench.repeats="${REPEATS:-3}" -Dbench.warmup="${WARMUP:-60000}" \
    -Dbench.cleanup-rows="${CLEANUP_ROWS:-1000000}" -Dbench.batched="${BATCHED:-true}" \
    -Dbench.batch-workers="${BATCH_WORKERS:-64}" -Dbench.app-jvm-options="${APP_JVM_OPTIONS:-}" \
    -Dbench.baseline-app="${BASELINE_APP:-}" \
    -Dquarkus.log.category.\"org.apache.activemq\".level=WARN \
    io.pointsinbox.bench.Benchmark
