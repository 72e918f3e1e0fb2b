package io.pointsinbox.support;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * Runs a test class against the batched mode: the tests of the per-message mode are inherited unchanged by a
 * subclass carrying this profile, so both modes answer to the same assertions.
 */
public class BatchedMode implements QuarkusTestProfile {

    /** Workers per instance: a batch never holds more messages than there are workers waiting on it. */
    public static final int WORKERS = 16;

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("points.batch.enabled", "true", "points.concurrency", String.valueOf(WORKERS));
    }
}
