package io.pointsinbox.messaging;

import io.pointsinbox.support.DeadLetterLink;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link DeadLetterUnconfirmedTest}, in batched mode. */
@QuarkusTest
@TestProfile(DeadLetterLink.Batched.class)
class DeadLetterUnconfirmedBatchedTest extends DeadLetterUnconfirmedTest {
}
