package io.pointsinbox.messaging;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The black-box cases against the packaged application: the fast-jar by default, the native binary with -Dnative. */
@QuarkusIntegrationTest
class BlackBoxInboxIT extends BlackBoxInboxTest {
}
