package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ArrivalSchedule;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ArrivalSliceTest {

    @Test
    void fiveRequestsPerSecondForThreeSecondsOnTwoWorkersIsSplitWithinOneArrival() {
        // Poisson at 5/s for 3 s: whatever the draw, the two slices differ by at most one arrival
        ArrivalSchedule whole = OpenLoopSettings.builder(5).arrival(Arrival.poisson()).seed(0)
                .duration(Duration.ofSeconds(3)).build().schedule();
        ArrivalSchedule first = ArrivalSlice.of(whole, 0, 2);
        ArrivalSchedule second = ArrivalSlice.of(whole, 1, 2);
        int n = whole.size();
        assertEquals((n + 1) / 2, first.size());
        assertEquals(n / 2, second.size());
        assertArrayEquals(new int[] {(n + 1) / 2, n / 2}, ArrivalSlice.measuredCounts(whole, 2));
        // together they are exactly the single-machine schedule
        long[] union = LongStream.concat(Arrays.stream(first.offsetsNanos()), Arrays.stream(second.offsetsNanos()))
                .sorted().toArray();
        assertArrayEquals(whole.offsetsNanos(), union);
        assertEquals(whole.offsetNanos(1), second.offsetNanos(0), "offsets stay from the shared start");
    }

    @Test
    void aFixedScheduleIsDealtRoundRobin() {
        ArrivalSchedule whole = ArrivalSchedule.of(new long[] {0, 10, 20, 30, 40, 50, 60}, 0);
        assertArrayEquals(new long[] {0, 30, 60}, ArrivalSlice.of(whole, 0, 3).offsetsNanos());
        assertArrayEquals(new long[] {10, 40}, ArrivalSlice.of(whole, 1, 3).offsetsNanos());
        assertArrayEquals(new long[] {20, 50}, ArrivalSlice.of(whole, 2, 3).offsetsNanos());
        assertArrayEquals(new int[] {3, 2, 2}, ArrivalSlice.measuredCounts(whole, 3));
    }

    @Test
    void warmupArrivalsStayTheWholeSchedulesFirstOnes() {
        ArrivalSchedule whole = OpenLoopSettings.builder(10).arrival(Arrival.constant()).maxRequests(6)
                .warmup(Warmup.requests(3)).build().schedule();
        assertEquals(9, whole.size());
        ArrivalSchedule first = ArrivalSlice.of(whole, 0, 2); // arrivals 0, 2 (warmup), 4, 6, 8
        ArrivalSchedule second = ArrivalSlice.of(whole, 1, 2); // arrivals 1 (warmup), 3, 5, 7
        assertEquals(2, first.warmupArrivals());
        assertEquals(3, first.measuredArrivals());
        assertEquals(1, second.warmupArrivals());
        assertEquals(3, second.measuredArrivals());
        assertArrayEquals(new int[] {3, 3}, ArrivalSlice.measuredCounts(whole, 2));
    }

    @Test
    void moreWorkersThanArrivalsIsRefused() {
        ArrivalSchedule whole = ArrivalSchedule.of(new long[] {0, 10}, 0);
        assertThrows(IllegalArgumentException.class, () -> ArrivalSlice.of(whole, 2, 3));
    }
}
