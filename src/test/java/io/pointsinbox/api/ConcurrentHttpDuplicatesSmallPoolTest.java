package io.pointsinbox.api;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** {@link ConcurrentHttpDuplicatesTest} against a pool of four connections: a hundred requests, four at a time. */
@QuarkusTest
@TestProfile(ConcurrentHttpDuplicatesSmallPoolTest.SmallPool.class)
class ConcurrentHttpDuplicatesSmallPoolTest extends ConcurrentHttpDuplicatesTest {

    public static class SmallPool implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            // Two AMQP workers: the start-up rule keeps two connections for each (a duplicate's second read).
            return Map.of("quarkus.datasource.jdbc.max-size", "4", "points.concurrency", "2");
        }
    }
}
