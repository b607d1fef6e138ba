package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.ArrivalSchedule;

/**
 * A worker's part of an open loop: arrivals {@code k, k+n, k+2n, ...} of the run's one schedule, dealt round-robin
 * to its {@code n} workers. The union of the parts is exactly the single-machine schedule (same rate, arrival shape
 * and seed), so the workers' counts differ by at most one, whatever the draw; independent schedules at {@code R/n}
 * each would only match on average (an open loop of 5 req/s on two workers once sent 3 and 12).
 */
final class ArrivalSlice {
    private ArrivalSlice() {
    }

    /**
     * Part {@code slice} of {@code slices}, its offsets still from the shared start; its warmup arrivals are those of
     * the whole schedule's warmup.
     *
     * @throws IllegalArgumentException when the part would be empty (more workers than arrivals)
     */
    static ArrivalSchedule of(ArrivalSchedule whole, int slice, int slices) {
        if (slices < 1 || slice < 0 || slice >= slices) {
            throw new IllegalArgumentException("slice " + slice + " of " + slices + " does not exist");
        }
        long[] all = whole.offsetsNanos();
        long[] part = new long[size(all.length, slice, slices)];
        int warmup = 0;
        for (int i = slice, j = 0; i < all.length; i += slices, j++) {
            part[j] = all[i];
            if (whole.isWarmup(i)) warmup++;
        }
        if (part.length == 0) {
            throw new IllegalArgumentException("slice " + slice + " of " + slices + " of " + whole + " is empty");
        }
        return ArrivalSchedule.of(part, warmup);
    }

    /** How many arrivals of {@code total} fall on slice {@code slice} of {@code slices}. */
    static int size(int total, int slice, int slices) {
        return total / slices + (slice < total % slices ? 1 : 0);
    }

    /** The measured arrivals of each of {@code slices} parts (for tests and reports). */
    static int[] measuredCounts(ArrivalSchedule whole, int slices) {
        int[] counts = new int[slices];
        for (int i = whole.warmupArrivals(); i < whole.size(); i++) counts[i % slices]++;
        return counts;
    }
}
