package io.pointsinbox.messaging;

import io.pointsinbox.support.BatchedMode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link PointsGrantedConsumerTest}, in batched mode. */
@QuarkusTest
@TestProfile(BatchedMode.class)
class PointsGrantedConsumerBatchedTest extends PointsGrantedConsumerTest {
}
