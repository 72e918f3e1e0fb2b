package io.pointsinbox.inbox;

import io.pointsinbox.support.BatchedMode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link IdConflictTest}, in batched mode. */
@QuarkusTest
@TestProfile(BatchedMode.class)
class IdConflictBatchedTest extends IdConflictTest {
}
