package io.pointsinbox.points;

import io.pointsinbox.support.BatchedMode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link RedemptionTest}, in batched mode. */
@QuarkusTest
@TestProfile(BatchedMode.class)
class RedemptionBatchedTest extends RedemptionTest {
}
