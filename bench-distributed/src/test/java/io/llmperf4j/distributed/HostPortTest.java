package io.llmperf4j.distributed;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostPortTest {

    @Test
    void parsesHostPortBareHostAndIpv6() {
        assertEquals(new HostPort("10.0.0.1", 5701), HostPort.parse("10.0.0.1:5701"));
        assertEquals(new HostPort("load-1.example.com", 0), HostPort.parse(" load-1.example.com "));
        assertEquals(new HostPort("::1", 5702), HostPort.parse("[::1]:5702"));
        assertEquals("[::1]:5702", HostPort.parse("[::1]:5702").toString());
        assertEquals("10.0.0.1", HostPort.parse("10.0.0.1").toString());
    }

    @Test
    void badAddressesSayWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostPort.parse("h:99999")).getMessage()
                .contains("1..65535"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HostPort.parse("")).getMessage()
                .contains("HOST:PORT"));
    }

    @Test
    void clockOffsetIsRemoteMinusTheRoundTripsMidpointAndKeepsTheFastestSample() {
        ClockOffset slow = ClockOffset.of(1_000, 51_500, 3_000); // midpoint 2000
        assertEquals(49_500, slow.offsetMicros());
        assertEquals(2_000, slow.roundTripMicros());
        ClockOffset fast = ClockOffset.of(10_000, 60_200, 10_400);
        assertEquals(50_000, fast.offsetMicros());
        assertEquals(fast, slow.better(fast));
        assertEquals(fast, fast.better(slow));
    }
}
