package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.ToIntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KeepUp} on synthetic levels: arrivals due at known instants, each ending a known latency later (its answer's
 * length in its record's output tokens). The first-to-last rates the fit replaces are computed alongside, to show the
 * bias it removes.
 */
class KeepUpTest {
    private static final ToIntFunction<RequestRecord> TOKENS = RequestRecord::outputTokens;
    private static final double THRESHOLD = 0.95;

    /** A success due at {@code dueSeconds}, sent then, ending {@code e2eSeconds} later, with {@code tokens}. */
    private static ScheduledRecord success(int i, double dueSeconds, double e2eSeconds, int tokens) {
        long due = Math.round(dueSeconds * 1e9);
        RequestRecord r = new RequestRecord(i, "r" + i, null, 0, 50_000_000L, Math.round(e2eSeconds * 1e9),
                Math.round(e2eSeconds * 1e9), tokens, new long[0], "x", 10, 200, tokens, null, null, "length", null,
                null, null, RequestRecord.NEVER, -1, null, null, null);
        return new ScheduledRecord(r, i, due, due, false);
    }

    /** Arrivals every 1 / rate s for {@code seconds}. */
    private static double[] arrivals(double rate, double seconds) {
        int n = (int) Math.round(rate * seconds);
        double[] due = new double[n];
        for (int i = 0; i < n; i++) due[i] = i / rate;
        return due;
    }

    private static double firstToLastShare(List<ScheduledRecord> ok) {
        return ScheduledRecord.perSecondFirstToLast(ok, ScheduledRecord::endOffsetNanos)
                / ScheduledRecord.perSecondFirstToLast(ok, ScheduledRecord::intendedSendOffsetNanos);
    }

    @Test
    void aConstantLatencyKeepsUpExactly() {
        List<ScheduledRecord> ok = new ArrayList<>();
        double[] due = arrivals(2, 10);
        for (int i = 0; i < due.length; i++) ok.add(success(i, due[i], 1.0, 100));
        KeepUp k = KeepUp.of(ok, TOKENS, false);
        assertEquals(1.0, k.share(), 1e-9);
        assertEquals(1.0, k.low(), 1e-9);
        assertEquals(1.0, k.high(), 1e-9);
        assertEquals(20, k.requests());
        assertFalse(k.byLength(), "one length: the slope alone");
        assertEquals(KeepUp.Reading.KEPT_UP, k.reading(THRESHOLD));
    }

    /**
     * The QA's level: 2 req/s for 10 s, llmperf's 150 ± 80 output tokens at 10 ms a token, so latencies 0.4-3.4 s.
     * No backlog at all, yet the first-to-last rates read under 95 %; the fit reads 100 % with a narrow interval.
     */
    @Test
    void aWideLatencySpreadDoesNotReadAsFallingBehind() {
        Random random = new Random(777);
        List<ScheduledRecord> ok = new ArrayList<>();
        double[] due = arrivals(2, 10);
        for (int i = 0; i < due.length; i++) {
            int tokens = 30 + random.nextInt(300);
            // the first a long answer, the last a longer one: the ends' span stretches past the arrivals'
            if (i == 0) tokens = 30;
            if (i == due.length - 1) tokens = 330;
            ok.add(success(i, due[i], 0.05 + tokens * 0.010 + random.nextDouble() * 0.01, tokens));
        }
        assertTrue(firstToLastShare(ok) < THRESHOLD, "the old reading: " + firstToLastShare(ok));
        KeepUp k = KeepUp.of(ok, TOKENS, false);
        assertTrue(k.byLength());
        assertEquals(1.0, k.share(), 0.01, k::toString);
        assertTrue(k.low() > 0.98 && k.high() < 1.02, k::toString);
        assertEquals(KeepUp.Reading.KEPT_UP, k.reading(THRESHOLD));
    }

    /**
     * Latencies spread 0.4-3.4 s by something the answer's length does not explain (one length): the slope alone is
     * unbiased but a 20-request level cannot pin it down, so the reading is "cannot tell", never "fell behind".
     */
    @Test
    void aShortLevelWithUnexplainedSpreadCannotTell() {
        Random random = new Random(1);
        List<ScheduledRecord> ok = new ArrayList<>();
        double[] due = arrivals(2, 10);
        for (int i = 0; i < due.length; i++) ok.add(success(i, due[i], 0.4 + 3.0 * random.nextDouble(), 150));
        KeepUp k = KeepUp.of(ok, TOKENS, false);
        assertFalse(k.byLength());
        assertTrue(k.low() < THRESHOLD && k.high() >= THRESHOLD, k::toString);
        assertEquals(KeepUp.Reading.CANNOT_TELL, k.reading(THRESHOLD));
        assertEquals(String.format(java.util.Locale.ROOT, "%.1f-%.1f %%", 100 * k.low(), 100 * k.high()),
                k.interval());
        // ten times as long a level, the same spread: the interval narrows to a verdict
        List<ScheduledRecord> longer = new ArrayList<>();
        double[] many = arrivals(2, 100);
        for (int i = 0; i < many.length; i++) longer.add(success(i, many[i], 0.4 + 3.0 * random.nextDouble(), 150));
        assertEquals(KeepUp.Reading.KEPT_UP, KeepUp.of(longer, TOKENS, false).reading(THRESHOLD));
    }

    /** One request at a time of 0.25 s (4 req/s) against 8 req/s: the i-th ends near i / 4, due at i / 8. */
    private static List<ScheduledRecord> queue(double seconds, Random random) {
        List<ScheduledRecord> ok = new ArrayList<>();
        double[] due = arrivals(8, seconds);
        double free = 0;
        for (int i = 0; i < due.length; i++) {
            int tokens = 15 + random.nextInt(20);
            double start = Math.max(free, due[i]);
            free = start + 0.05 + tokens * 0.008;
            ok.add(success(i, due[i], free - due[i], tokens));
        }
        return ok;
    }

    @Test
    void aGrowingQueueFallsBehindWithConfidence() {
        KeepUp k = KeepUp.of(queue(5, new Random(3)), TOKENS, false);
        assertEquals(0.5, k.share(), 0.05, k::toString);
        assertTrue(k.high() < THRESHOLD, k::toString);
        assertEquals(KeepUp.Reading.FELL_BEHIND, k.reading(THRESHOLD));
    }

    /**
     * A level cut at 10 s: the successes are those that ended by then. Keeping up with latencies up to 3.4 s, the
     * late ones are the short answers (the long ones were cancelled); the fit keeps to those due early enough, and
     * reads 100 %. Falling behind, the successes are the schedule's first part and it still reads 50 %.
     */
    @Test
    void aCutLevelIsFittedOnTheSuccessesTheCutCouldNotCensor() {
        Random random = new Random(5);
        List<ScheduledRecord> ok = new ArrayList<>();
        double[] due = arrivals(4, 12);
        for (int i = 0; i < due.length; i++) {
            int tokens = 30 + random.nextInt(300);
            double e2e = 0.05 + tokens * 0.010;
            if (due[i] + e2e <= 10) ok.add(success(i, due[i], e2e, tokens));
        }
        KeepUp k = KeepUp.of(ok, TOKENS, true);
        assertTrue(k.requests() < ok.size(), "the late short answers are left out: " + k);
        double lastEnd = ok.stream().mapToLong(ScheduledRecord::endOffsetNanos).max().orElseThrow() / 1e9;
        assertEquals(1.0, k.share(), 0.01, k::toString);
        assertEquals(KeepUp.Reading.KEPT_UP, k.reading(THRESHOLD));
        assertTrue(lastEnd <= 10);

        List<ScheduledRecord> behind = queue(8, new Random(6)).stream()
                .filter(r -> r.endOffsetNanos() <= 4_000_000_000L).toList();
        KeepUp cut = KeepUp.of(behind, TOKENS, true);
        assertEquals(0.5, cut.share(), 0.05, cut::toString);
        assertEquals(KeepUp.Reading.FELL_BEHIND, cut.reading(THRESHOLD));
    }

    @Test
    void tooFewToFitGiveNoFit() {
        assertNull(KeepUp.of(List.of(success(0, 0, 1, 10), success(1, 1, 1, 10)), TOKENS, false));
        // every success due at one instant: no slope
        assertNull(KeepUp.of(List.of(success(0, 1, 1, 10), success(1, 1, 2, 10), success(2, 1, 3, 10)), TOKENS,
                false));
    }
}
