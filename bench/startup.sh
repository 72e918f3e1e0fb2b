#!/usr/bin/env bash
# Start-up and memory, side by side: JDK 17 fast-jar, Temurin 25 fast-jar, and Temurin 25 aot-jar with the JVM AOT
# cache (trained by the integration tests), each also with a small-footprint set of JVM options. Each is started in turn, round after round, against the same broker and
# database; then each applies a backlog of messages and its RSS is read.
# Options (environment): JDK17, JDK25 (JDK homes), ROUNDS (5), RSS_MESSAGES (100000).
# Results: target/bench/startup.md.
set -euo pipefail
cd "$(dirname "$0")/.."
JDK17=${JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
OUT=target/startup
rm -rf "$OUT" && mkdir -p "$OUT"

echo "== JDK 17 fast-jar"
JAVA_HOME=$JDK17 ./mvnw -q -B -ntp package -DskipTests
cp -a target/quarkus-app "$OUT/jdk17-fast-jar"

echo "== Temurin 25 fast-jar"
JAVA_HOME=$JDK25 ./mvnw -q -B -ntp package -DskipTests
cp -a target/quarkus-app "$OUT/jdk25-fast-jar"

echo "== Temurin 25 aot-jar, AOT cache trained by the integration tests"
# aot.type=aot asks for the JDK 25 AOT cache; 'auto' would quietly produce AppCDS instead.
JAVA_HOME=$JDK25 ./mvnw -q -B -ntp verify -Dquarkus.package.jar.aot.enabled=true -Dquarkus.package.jar.aot.type=aot \
    -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=BlackBoxInboxIT
test -s target/quarkus-app/app.aot || { echo "no AOT cache was produced" >&2; exit 1; }
# The aot-jar is run where it was trained: the cache keeps the code source of the launcher's classes, so a copied
# application directory would look for its files at the old path. target/quarkus-app stays the aot-jar afterwards.
./mvnw -q -B -ntp dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath

# A small footprint for a 256Mi pod: small heap, serial GC, C1 only (C2's compilations compete with the service for
# two cores at start and keep their malloc arenas afterwards), native heap trimmed; compact object headers where the
# JVM has them and no AOT cache was trained without them. With the AOT cache, C1 also compiles only methods called
# ten times as often as by default (CompileThresholdScaling=10): fewer compilations leave about 14 MiB less resident
# after a backlog, for a start up to 18 % slower. Without the cache it slows the start by a quarter.
SMALL="-Xmx64m -Xms16m -XX:+UseSerialGC -Xss256k -XX:MaxDirectMemorySize=16m -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:ReservedCodeCacheSize=32m -XX:TrimNativeHeapInterval=1000 env:MALLOC_ARENA_MAX=2"

# -XX:AOTMode=on makes the JVM refuse to start rather than silently run without the cache.
VARIANTS="JDK 17 fast-jar|$JDK17/bin/java|$OUT/jdk17-fast-jar|"
VARIANTS+=";Temurin 25 fast-jar|$JDK25/bin/java|$OUT/jdk25-fast-jar|"
VARIANTS+=";Temurin 25 fast-jar, small footprint|$JDK25/bin/java|$OUT/jdk25-fast-jar|$SMALL -XX:+UseCompactObjectHeaders"
VARIANTS+=";Temurin 25 aot-jar + AOT cache|$JDK25/bin/java|target/quarkus-app|-XX:AOTCache=app.aot -XX:AOTMode=on"
VARIANTS+=";Temurin 25 aot-jar + AOT cache, small footprint|$JDK25/bin/java|target/quarkus-app|-XX:AOTCache=app.aot -XX:AOTMode=on $SMALL -XX:CompileThresholdScaling=10"
"$JDK17/bin/java" -Xmx1g -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" \
    -Dbench.startup-rounds="${ROUNDS:-5}" -Dbench.rss-messages="${RSS_MESSAGES:-100000}" \
    -Dbench.startup-variants="$VARIANTS" \
    -Dquarkus.log.category.\"org.apache.activemq\".level=WARN \
    io.pointsinbox.bench.Benchmark
