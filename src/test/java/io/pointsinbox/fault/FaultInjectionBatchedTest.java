package io.pointsinbox.fault;

import io.pointsinbox.support.BatchedMode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link FaultInjectionTest}, in batched mode. */
@QuarkusTest
@TestProfile(BatchedMode.class)
class FaultInjectionBatchedTest extends FaultInjectionTest {
}
