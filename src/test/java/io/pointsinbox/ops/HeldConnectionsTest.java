package io.pointsinbox.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HeldConnectionsTest {

    private final HeldConnections held = new HeldConnections(50);

    @AfterEach
    void stop() {
        held.stop();
    }

    @Test
    void aConnectionHeldPastTheBoundIsAbortedOnceAndForgotten() throws Exception {
        AtomicInteger aborts = new AtomicInteger();
        Connection connection = connection(aborts);
        held.taken(connection);
        held.closeOverdue();
        assertEquals(0, aborts.get(), "within the bound");
        Thread.sleep(80);
        held.closeOverdue();
        held.closeOverdue();
        assertEquals(1, aborts.get(), "past the bound, aborted once");
        assertEquals(0, held.held());
        assertFalse(held.given(connection), "forgotten once aborted: its bound is not restored on return");
    }

    @Test
    void aConnectionGivenBackOrTakenAgainIsNotAborted() throws Exception {
        AtomicInteger aborts = new AtomicInteger();
        Connection returned = connection(aborts);
        Connection retaken = connection(aborts);
        held.taken(returned);
        held.taken(retaken);
        Thread.sleep(80);
        assertTrue(held.given(returned), "a virtual thread held it: its socket bound is restored on return");
        assertTrue(held.given(retaken));
        held.taken(retaken);
        held.closeOverdue();
        assertEquals(0, aborts.get(), "the one given back, and the one taken again just now");
        assertEquals(1, held.held());
    }

    @Test
    void theWatchOnItsOwnThreadAbortsAConnectionHeldPastTheBound() throws Exception {
        HeldConnections watched = new HeldConnections(1);
        try {
            AtomicInteger aborts = new AtomicInteger();
            watched.taken(connection(aborts));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (aborts.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, aborts.get(), "aborted by the watch within a few of its periods (250 ms)");
        } finally {
            watched.stop();
        }
    }

    @Test
    void onlyVirtualThreadsAreTold() {
        assertFalse(HeldConnections.onVirtualThread(), "a platform thread");
    }

    private static Connection connection(AtomicInteger aborts) {
        return (Connection) Proxy.newProxyInstance(HeldConnectionsTest.class.getClassLoader(),
                new Class<?>[] { Connection.class }, (proxy, method, args) -> switch (method.getName()) {
                    case "abort" -> {
                        aborts.incrementAndGet();
                        yield null;
                    }
                    case "isClosed" -> false;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
