package io.llmperf4j.engine.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArrivalScheduleTest {

    private static final int DRAWS = 10_000;
    private static final double RATE = 20.0; // mean interval 50 ms

    private static double mean(double[] v) {
        double s = 0;
        for (double x : v) s += x;
        return s / v.length;
    }

    private static double variance(double[] v) {
        double m = mean(v);
        double s = 0;
        for (double x : v) s += (x - m) * (x - m);
        return s / (v.length - 1);
    }

    private static void assertWithin(double expected, double actual, double relative, String what) {
        assertTrue(Math.abs(actual - expected) <= relative * Math.abs(expected),
                what + ": expected " + expected + " ± " + (100 * relative) + " %, got " + actual);
    }

    @ParameterizedTest
    @ValueSource(longs = {1L, 42L, 11111L})
    void poissonIntervalsHaveMeanAndVarianceOfTheRate(long seed) {
        double[] d = ArrivalSchedule.intervalsSeconds(Arrival.poisson(), RATE, seed, DRAWS);
        assertWithin(1 / RATE, mean(d), 0.03, "mean interval");
        assertWithin(1 / (RATE * RATE), variance(d), 0.10, "variance (exponential: mean²)");
        assertTrue(java.util.Arrays.stream(d).allMatch(x -> x >= 0 && Double.isFinite(x)));
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.5, 1.0, 2.0, 4.0})
    void gammaIntervalsHaveMeanOneOverRateAndVarianceMeanSquaredOverShape(double k) {
        for (long seed : new long[] {7L, 2024L}) {
            double[] d = ArrivalSchedule.intervalsSeconds(Arrival.gamma(k), RATE, seed, DRAWS);
            double m = 1 / RATE;
            assertWithin(m, mean(d), 0.03, "mean interval (k=" + k + ", seed " + seed + ")");
            assertWithin(m * m / k, variance(d), 0.12, "variance mean²/k (k=" + k + ", seed " + seed + ")");
            assertEquals(m * m / k, Arrival.gamma(k).intervalVarianceSeconds2(RATE), 1e-15);
        }
    }

    @Test
    void constantIntervalsAreExactAndOffsetsDoNotDrift() {
        ArrivalSchedule s = ArrivalSchedule.generate(Arrival.constant(), 3.0, 0, Warmup.NONE, OptionalInt.of(3001),
                Optional.empty());
        assertEquals(3001, s.size());
        assertEquals(0, s.offsetNanos(0));
        assertEquals(333_333_333, s.offsetNanos(1));
        assertEquals(1_000_000_000L * 1000, s.offsetNanos(3000)); // 1000 s later, not a nanosecond of drift
        double[] d = ArrivalSchedule.intervalsSeconds(Arrival.constant(), 4.0, 9, 10);
        for (double x : d) assertEquals(0.25, x);
    }

    @Test
    void sameSeedSameScheduleOtherSeedOtherSchedule() {
        OpenLoopSettings a = OpenLoopSettings.builder(50).arrival(Arrival.gamma(0.7)).seed(5).maxRequests(500).build();
        assertEquals(a.schedule(), a.schedule());
        assertArrayEquals(a.schedule().offsetsNanos(), OpenLoopSettings.builder(50).arrival(Arrival.gamma(0.7))
                .seed(5).maxRequests(500).build().schedule().offsetsNanos());
        assertNotEquals(a.schedule(), a.toBuilder().seed(6).build().schedule());
        assertNotEquals(a.schedule(), a.toBuilder().arrival(Arrival.poisson()).build().schedule());
    }

    @Test
    void offsetsStartAtZeroAndNeverDecrease() {
        long[] o = OpenLoopSettings.builder(1000).arrival(Arrival.gamma(0.2)).seed(3).maxRequests(5000).build()
                .schedule().offsetsNanos();
        assertEquals(0, o[0]);
        for (int i = 1; i < o.length; i++) assertTrue(o[i] >= o[i - 1], "offset " + i);
    }

    @Test
    void durationBoundsTheMeasuredArrivals() {
        ArrivalSchedule s = ArrivalSchedule.generate(Arrival.constant(), 10, 0, Warmup.NONE, OptionalInt.empty(),
                Optional.of(Duration.ofSeconds(1)));
        assertEquals(10, s.size()); // 0.0 … 0.9 s; 1.0 s is outside [0, 1 s)
        assertEquals(900_000_000L, s.lastOffsetNanos());
        ArrivalSchedule both = ArrivalSchedule.generate(Arrival.constant(), 10, 0, Warmup.NONE, OptionalInt.of(4),
                Optional.of(Duration.ofSeconds(1)));
        assertEquals(4, both.size()); // whichever comes first
    }

    @Test
    void warmupArrivalsComeFirstAndDoNotCountAgainstTheLimits() {
        ArrivalSchedule byCount = ArrivalSchedule.generate(Arrival.constant(), 10, 0, Warmup.requests(5),
                OptionalInt.of(20), Optional.empty());
        assertEquals(25, byCount.size());
        assertEquals(5, byCount.warmupArrivals());
        assertEquals(20, byCount.measuredArrivals());
        assertEquals(500_000_000L, byCount.measureStartOffsetNanos());
        assertTrue(byCount.isWarmup(4));
        assertFalse(byCount.isWarmup(5));

        ArrivalSchedule byTime = ArrivalSchedule.generate(Arrival.constant(), 10, 0,
                Warmup.duration(Duration.ofSeconds(1)), OptionalInt.empty(), Optional.of(Duration.ofSeconds(2)));
        assertEquals(10, byTime.warmupArrivals()); // 0.0 … 0.9 s
        assertEquals(20, byTime.measuredArrivals()); // 1.0 … 2.9 s
        assertEquals(1_000_000_000L, byTime.measureStartOffsetNanos());
    }

    /** A trace's nominal schedule counts its requests at its mean rate; its text names the trace, not a draw. */
    @Test
    void aTraceArrivalCountsTheTraceAndDescribesIt() {
        Arrival trace = new Arrival.Trace("mooncake:t.jsonl", 5, Duration.ofMillis(1500), 2, Duration.ofSeconds(10));
        OpenLoopSettings s = OpenLoopSettings.builder(4 / 1.5).arrival(trace).maxRequests(5).build();
        assertEquals(5, s.schedule().measuredArrivals());
        assertEquals("trace", trace.name());
        assertEquals("trace mooncake:t.jsonl (5 requests over 1.5 s, speedup 2, first 10 s)", trace.toString());
        assertEquals("trace replay of mooncake:t.jsonl (5 requests over 1.5 s, speedup 2, first 10 s), mean 2.67 req/s",
                s.describe());
        // no rate without a span: the nominal rate is a stand-in, never shown
        assertEquals("trace replay of mooncake:t.jsonl (1 request over 0 s, speedup 0.5), its one request at t=0",
                OpenLoopSettings.builder(1).arrival(new Arrival.Trace("mooncake:t.jsonl", 1, Duration.ZERO, 0.5,
                        null)).maxRequests(1).build().describe());
        assertEquals("trace replay of mooncake:t.jsonl (3 requests over 0 s, speedup 1), all 3 requests at t=0 (a "
                + "burst), at most 2 in flight", OpenLoopSettings.builder(3).arrival(new Arrival.Trace(
                "mooncake:t.jsonl", 3, Duration.ZERO, 1, null)).maxRequests(3).maxConcurrency(2).build().describe());
        assertThrows(IllegalArgumentException.class, () -> new Arrival.Trace("x", 0, Duration.ZERO, 1, null));
    }

    @Test
    void burstinessMapsToShapes() {
        assertInstanceOf(Arrival.Constant.class, Arrival.ofBurstiness(Double.POSITIVE_INFINITY));
        assertInstanceOf(Arrival.Poisson.class, Arrival.ofBurstiness(1.0));
        assertEquals(new Arrival.Gamma(0.25), Arrival.ofBurstiness(0.25));
    }

    @Test
    void invalidValuesAreNamed() {
        assertEquals("rate (-1.0) must be > 0", assertThrows(IllegalArgumentException.class,
                () -> OpenLoopSettings.builder(-1.0).maxRequests(1).build()).getMessage());
        assertEquals("gamma shape (0.0) must be > 0 and finite", assertThrows(IllegalArgumentException.class,
                () -> Arrival.gamma(0)).getMessage());
        assertEquals("an open loop needs maxRequests or duration (or both) to end its schedule",
                assertThrows(IllegalArgumentException.class, () -> OpenLoopSettings.builder(1).build()).getMessage());
        assertEquals("maxConcurrency (0) must be >= 1", assertThrows(IllegalArgumentException.class,
                () -> OpenLoopSettings.builder(1).maxRequests(1).maxConcurrency(0).build()).getMessage());
        assertEquals("warmup requests (-2) must be >= 1", assertThrows(IllegalArgumentException.class,
                () -> Warmup.requests(-2)).getMessage());
        assertEquals("offset 1 (5 ns) must be >= 0 and >= the one before", assertThrows(
                IllegalArgumentException.class, () -> ArrivalSchedule.of(new long[] {10, 5}, 0)).getMessage());
    }
}
