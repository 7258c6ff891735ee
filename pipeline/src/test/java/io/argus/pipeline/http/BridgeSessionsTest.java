package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import org.junit.jupiter.api.Test;

/** The SockJS bridge's sessions are bounded in all and per client address, and an ended one frees its place. Budget: 1 s. */
@Budget(seconds = 5)
class BridgeSessionsTest {
    @Test
    void boundedInAllAndPerAddressAndFreedWhenClosed() {
        BridgeSessions s = new BridgeSessions(5, 2);
        Object[] a = {new Object(), new Object(), new Object()};
        assertTrue(s.open(a[0], "10.0.0.1"));
        assertTrue(s.open(a[1], "10.0.0.1"));
        assertFalse(s.open(a[2], "10.0.0.1"), "a third session from one address");
        assertTrue(s.open(a[1], "10.0.0.1"), "a session admitted once stays admitted");
        for (int i = 0; i < 3; i++) assertTrue(s.open(new Object(), "10.0.1." + i));
        assertFalse(s.open(new Object(), "10.0.2.1"), "a sixth session in all");
        assertEquals(5, s.size());
        s.closed(a[0]);
        s.closed(new Object()); // never admitted: nothing changes
        assertEquals(4, s.size());
        assertTrue(s.open(a[2], "10.0.0.1"), "a place freed by a closed session");
        s.closed(a[1]);
        s.closed(a[2]);
        assertEquals(3, s.addresses(), "an address whose sessions all ended is forgotten");
    }
}
