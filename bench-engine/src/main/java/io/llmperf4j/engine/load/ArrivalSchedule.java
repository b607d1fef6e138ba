package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SplittableRandom;

/**
 * The intended send time of every open-loop arrival, precomputed before the run starts, as nanosecond offsets from
 * the run's start: non-decreasing, the first at 0. Arrivals {@code [0, warmupArrivals)} are warmup.
 *
 * <p>Offsets are rounded from a running sum of intervals in seconds (double), so rounding never accumulates into
 * drift. Arrival {@code i} of a run uses request spec {@code i mod M}.
 */
public final class ArrivalSchedule {

    /** A schedule longer than this (80 MB of offsets) is refused. */
    public static final int MAX_ARRIVALS = 10_000_000;

    private final long[] offsetsNanos;
    private final int warmupArrivals;
    private final long measureStartOffsetNanos;

    private ArrivalSchedule(long[] offsetsNanos, int warmupArrivals, long measureStartOffsetNanos) {
        this.offsetsNanos = offsetsNanos;
        this.warmupArrivals = warmupArrivals;
        this.measureStartOffsetNanos = measureStartOffsetNanos;
    }

    /**
     * A fixed schedule (trace replay, tests).
     *
     * @throws IllegalArgumentException when the offsets are empty, negative or decreasing
     */
    public static ArrivalSchedule of(long[] offsetsNanos, int warmupArrivals) {
        long[] copy = offsetsNanos.clone();
        if (copy.length == 0) throw new IllegalArgumentException("a schedule needs at least one arrival");
        if (warmupArrivals < 0 || warmupArrivals > copy.length) {
            throw new IllegalArgumentException("warmupArrivals (" + warmupArrivals + ") must be in [0, "
                    + copy.length + "]");
        }
        for (int i = 0; i < copy.length; i++) {
            if (copy[i] < 0 || (i > 0 && copy[i] < copy[i - 1])) {
                throw new IllegalArgumentException("offset " + i + " (" + copy[i]
                        + " ns) must be >= 0 and >= the one before");
            }
        }
        long measureStart = warmupArrivals < copy.length ? copy[warmupArrivals] : copy[copy.length - 1];
        return new ArrivalSchedule(copy, warmupArrivals, measureStart);
    }

    /**
     * Draws a schedule: arrival 0 at offset 0, then one interval per arrival. Warmup arrivals come first (see
     * {@link Warmup}); then measured arrivals until {@code maxRequests} exist or the next would be at or after
     * {@code duration} past the measured window's start.
     *
     * @throws IllegalArgumentException when the schedule would exceed {@link #MAX_ARRIVALS}, or the settings are
     *                                  unbounded
     */
    public static ArrivalSchedule generate(Arrival arrival, double requestsPerSecond, long seed, Warmup warmup,
                                           OptionalInt maxRequests, Optional<Duration> duration) {
        Objects.requireNonNull(arrival, "arrival");
        Objects.requireNonNull(warmup, "warmup");
        if (maxRequests.isEmpty() && duration.isEmpty()) {
            throw new IllegalArgumentException("a schedule needs maxRequests or duration");
        }
        SplittableRandom random = new SplittableRandom(seed);
        int maxMeasured = maxRequests.orElse(Integer.MAX_VALUE);
        long durationNanos = duration.map(Deadlines::cappedNanos).orElse(Long.MAX_VALUE);
        long[] offsets = new long[(int) Math.min(1024, Math.max(16L, (long) maxMeasured + 16))];
        int count = 0;
        int warmupCount = 0;
        long measureStart = -1;
        double tSeconds = 0;
        while (true) {
            long offset = Math.round(tSeconds * 1e9);
            boolean isWarmup = measureStart < 0 && isWarmup(warmup, count, offset);
            if (!isWarmup) {
                if (measureStart < 0) {
                    measureStart = warmup instanceof Warmup.ForDuration d ? d.nanos() : offset;
                }
                if (count - warmupCount >= maxMeasured) break;
                if (offset - measureStart >= durationNanos) break;
            }
            if (count == MAX_ARRIVALS) {
                throw new IllegalArgumentException("the schedule would exceed " + MAX_ARRIVALS + " arrivals (rate "
                        + requestsPerSecond + "/s, duration " + duration.map(Duration::toString).orElse("none")
                        + ", maxRequests " + (maxRequests.isPresent() ? maxRequests.getAsInt() : "none")
                        + ", warmup " + warmup + "); lower the rate or the length");
            }
            if (count == offsets.length) offsets = Arrays.copyOf(offsets, (int) Math.min(MAX_ARRIVALS, count * 2L));
            offsets[count++] = offset;
            if (isWarmup) warmupCount++;
            tSeconds += arrival.nextIntervalSeconds(random, requestsPerSecond);
        }
        return new ArrivalSchedule(Arrays.copyOf(offsets, count), warmupCount, measureStart);
    }

    /**
     * {@code n} raw intervals in seconds, as {@link #generate} draws them for this seed (for statistics and
     * manifests).
     */
    public static double[] intervalsSeconds(Arrival arrival, double requestsPerSecond, long seed, int n) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] out = new double[n];
        for (int i = 0; i < n; i++) out[i] = arrival.nextIntervalSeconds(random, requestsPerSecond);
        return out;
    }

    private static boolean isWarmup(Warmup warmup, int index, long offsetNanos) {
        if (warmup instanceof Warmup.ForRequests r) return index < r.count();
        if (warmup instanceof Warmup.ForDuration d) return offsetNanos < d.nanos();
        return false;
    }


    /** Arrivals in all, warmup included. */
    public int size() {
        return offsetsNanos.length;
    }

    public long offsetNanos(int index) {
        return offsetsNanos[index];
    }

    /** A copy of every offset. */
    public long[] offsetsNanos() {
        return offsetsNanos.clone();
    }

    public int warmupArrivals() {
        return warmupArrivals;
    }

    public int measuredArrivals() {
        return offsetsNanos.length - warmupArrivals;
    }

    public boolean isWarmup(int index) {
        return index < warmupArrivals;
    }

    /**
     * Where the measured window starts: the first measured arrival's offset, or the warmup duration; the last
     * offset when every arrival is warmup.
     */
    public long measureStartOffsetNanos() {
        return measureStartOffsetNanos;
    }

    /** Offset of the last arrival. */
    public long lastOffsetNanos() {
        return offsetsNanos[offsetsNanos.length - 1];
    }

    /**
     * The measured arrivals' scheduled rate, per second: their intervals over the first to the last one; NaN with
     * fewer than two, infinite when they share one instant (a burst).
     */
    public double measuredRatePerSecond() {
        int measured = measuredArrivals();
        if (measured < 2) return Double.NaN;
        return (measured - 1) / ((lastOffsetNanos() - offsetsNanos[warmupArrivals]) / 1e9);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrivalSchedule s && s.warmupArrivals == warmupArrivals
                && s.measureStartOffsetNanos == measureStartOffsetNanos && Arrays.equals(s.offsetsNanos, offsetsNanos);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(offsetsNanos) * 31 + warmupArrivals;
    }

    @Override
    public String toString() {
        return "ArrivalSchedule[" + offsetsNanos.length + " arrivals (" + warmupArrivals + " warmup), last at "
                + lastOffsetNanos() + " ns]";
    }
}
