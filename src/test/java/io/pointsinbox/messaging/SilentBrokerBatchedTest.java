package io.pointsinbox.messaging;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** Every test of {@link SilentBrokerTest}, in batched mode. */
@QuarkusTest
@TestProfile(SilentBrokerTest.BrokerBehindProxyBatched.class)
class SilentBrokerBatchedTest extends SilentBrokerTest {
}
