package io.llmperf4j.run;

import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The requests in flight at once, from the records' send and end times. */
class PeakInFlightTest {
    /** A request sent at {@code startMillis} that took {@code e2eMillis}. */
    private static RequestRecord sent(long startMillis, long e2eMillis) {
        return new RequestRecord(0, "id", "resp", startMillis * 1000, 1_000_000, e2eMillis * 1_000_000,
                e2eMillis * 1_000_000, 3, new long[0], "text", 10, 5, 4, 4, 10, "stop", null);
    }

    @Test
    void thePeakIsTheMostOverlappingRequests() {
        // 0-10, 5-15, 8-9, 20-30: three at once around 8 ms, one later
        assertEquals(3, PeakInFlight.of(List.of(sent(0, 10), sent(5, 10), sent(8, 1), sent(20, 10))));
        assertEquals(1, PeakInFlight.of(List.of(sent(0, 10), sent(10, 10))), "an end and a send at one instant");
        assertEquals(0, PeakInFlight.of(List.of()));
    }

    /**
     * A lost worker's LOST requests (sent, their end unknown: e2e -1) are left out, and with them the sweep's
     * ArrayIndexOutOfBounds that lost the run's files; so are records of no length.
     */
    @Test
    void requestsWithoutAnEndAreLeftOut() {
        RequestRecord instant = sent(12, 0);
        RequestRecord lost = new RequestRecord(1, "lost", null, 12_000, -1, -1, -1, 0, new long[0], "", 10, 5,
                -1, null, null, null, null);
        assertEquals(2, PeakInFlight.of(List.of(sent(0, 10), sent(5, 10), lost, lost, instant)));
        assertEquals(0, PeakInFlight.of(List.of(lost)));
    }

    @Test
    void aClosedLoopKeepsItsConcurrency() {
        assertEquals(8, PeakInFlight.concurrency(new ClosedLoopSettings(8, Duration.ofSeconds(1)), List.of(), 3));
        assertEquals("concurrency 8", PeakInFlight.label(new ClosedLoopSettings(8, Duration.ofSeconds(1)), 8));
    }
}
