#!/usr/bin/env bash
# The drain benchmark (io.pointsinbox.bench.DrainBenchmark): each configuration in VARIANTS is restarted with a
# backlog on a standalone ActiveMQ Artemis broker (its own process) and measured cold, warm and on duplicates, with
# pgbench running the same transaction in the same run. Results: target/bench/results.md.
#
# Environment (all optional):
#   VARIANTS  configurations, "label|java|app directory|JVM options and env:NAME=value" separated by ';'
#             (default: the recommended configuration, see docs/performance.md)
#   ROUNDS (1), COLD (20000), WARM (100000), IDLE_STARTS (5), PGBENCH_SECONDS (10), PGBENCH_CLIENTS (1,4,8,16);
#             COLD=0 or WARM=0 leaves that drain out, PGBENCH_CLIENTS= leaves pgbench out
#   ARTEMIS_VERSION (2.56.0): downloaded once from Maven Central into ~/.cache/points-inbox
#   PROFILE=1 profiles the cold drain (from the launch) and the warm drain's steady window with async-profiler
#             (tools.profiler:async-profiler from Maven Central, CPU samples every 1 ms): collapsed stacks in
#             target/bench/profiles/; the figures of a profiled run are inflated by the profiler, not for reporting
set -euo pipefail
cd "$(dirname "$0")/.."
command -v pgbench >/dev/null || { echo "pgbench is required (Debian: postgresql-client)" >&2; exit 1; }

ARTEMIS_VERSION=${ARTEMIS_VERSION:-2.56.0}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/points-inbox
ARTEMIS_HOME=$CACHE/apache-artemis-$ARTEMIS_VERSION
if [ ! -x "$ARTEMIS_HOME/bin/artemis" ]; then
    mkdir -p "$CACHE"
    url=https://repo1.maven.org/maven2/org/apache/artemis/apache-artemis/$ARTEMIS_VERSION/apache-artemis-$ARTEMIS_VERSION-bin.tar.gz
    echo "Downloading $url"
    curl -fsSL -o "$CACHE/artemis.tar.gz" "$url"
    echo "$(curl -fsSL "$url.sha512" | cut -d' ' -f1)  $CACHE/artemis.tar.gz" | sha512sum -c -
    tar xzf "$CACHE/artemis.tar.gz" -C "$CACHE" && rm "$CACHE/artemis.tar.gz"
fi

PROFILER=
if [ "${PROFILE:-0}" = 1 ]; then
    AP_VERSION=4.6
    PROFILER=$CACHE/async-profiler-$AP_VERSION/linux-x64/libasyncProfiler.so
    if [ ! -f "$PROFILER" ]; then
        url=https://repo1.maven.org/maven2/tools/profiler/async-profiler/$AP_VERSION/async-profiler-$AP_VERSION.jar
        echo "Downloading $url"
        mkdir -p "$CACHE/async-profiler-$AP_VERSION"
        curl -fsSL -o "$CACHE/async-profiler.jar" "$url"
        echo "$(curl -fsSL "$url.sha1")  $CACHE/async-profiler.jar" | sha1sum -c -
        unzip -q -o "$CACHE/async-profiler.jar" 'linux-x64/*' -d "$CACHE/async-profiler-$AP_VERSION"
        rm "$CACHE/async-profiler.jar"
    fi
fi

if [ -z "${VARIANTS:-}" ]; then
    bin/build-recommended
    VARIANTS="recommended|$(bin/build-recommended --java)|target/quarkus-app|$(bin/build-recommended --jvm-options) env:MALLOC_ARENA_MAX=2"
fi
./mvnw -q -B -ntp test-compile dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile=target/bench.classpath
java -Xmx512m -cp "target/test-classes:$(cat target/bench.classpath)" \
    -Dbench.variants="$VARIANTS" -Dbench.artemis-home="$ARTEMIS_HOME" -Dbench.rounds="${ROUNDS:-1}" \
    -Dbench.cold="${COLD:-20000}" -Dbench.warm="${WARM:-100000}" -Dbench.idle-starts="${IDLE_STARTS:-5}" \
    -Dbench.pgbench-seconds="${PGBENCH_SECONDS:-10}" -Dbench.pgbench-clients="${PGBENCH_CLIENTS-1,4,8,16}" \
    -Dbench.profiler="$PROFILER" \
    io.pointsinbox.bench.DrainBenchmark
