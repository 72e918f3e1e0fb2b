package io.pointsinbox.inbox;

import io.pointsinbox.support.BatchedMode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link TwoConsumersTest}, in batched mode. */
@QuarkusTest
@TestProfile(BatchedMode.class)
class TwoConsumersBatchedTest extends TwoConsumersTest {
}
