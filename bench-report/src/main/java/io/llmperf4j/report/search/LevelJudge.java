package io.llmperf4j.report.search;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.SloMetric;
import io.llmperf4j.report.metrics.SloObjective;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Judges one level's requests, as they end, against the objectives, with 95 % confidence:
 * <ul>
 *   <li>a percentile objective by the order-statistic interval of the percentile ({@link
 *       SearchStatistics#quantileRanks}): met when its upper end is within the bound, missed when its lower end is
 *       past it. Its point estimate is llmperf4j's one percentile definition ({@link Percentiles}, interpolated in
 *       ns, then ms), so over the same requests it equals the summary's and the tables' figure to the last digit;</li>
 *   <li>an attainment or error-rate objective by the Wilson interval of the proportion.</li>
 * </ul>
 * Nothing is resolved before {@code minSamples} requests. A failed request misses every latency objective (it never
 * delivered in time) and counts in the error rate. A request cancelled by the client (the level's end) is censored,
 * alike in every objective form: what it had measured counts as measured (its TTFT once the first token arrived, its
 * inter-token gaps so far), it misses a TTFT or E2E bound it had already outlived, and is left out otherwise (of
 * TPOT, of an ITL attainment it had not yet missed, of the error rate). Latencies are taken from the intended send
 * ({@code lagNanos} added to TTFT and E2E), so an open loop's queueing behind its schedule counts. Not thread-safe:
 * one thread adds and judges.
 */
public final class LevelJudge {
    /** Two-sided: each interval holds with 95 %. */
    public static final double ALPHA = 0.05;

    private final List<SloObjective> objectives;
    private final int minSamples;
    private final Tally[] tallies;
    private int requests;

    /** @param minSamples requests before any verdict is resolved (at least 1) */
    public LevelJudge(List<SloObjective> objectives, int minSamples) {
        this.objectives = List.copyOf(objectives);
        if (this.objectives.isEmpty()) throw new IllegalArgumentException("no objective to judge");
        if (minSamples < 1) throw new IllegalArgumentException("minSamples (" + minSamples + ") must be >= 1");
        this.minSamples = minSamples;
        this.tallies = new Tally[this.objectives.size()];
        for (int i = 0; i < tallies.length; i++) tallies[i] = new Tally();
    }

    /** Requests added so far. */
    public int samples() {
        return requests;
    }

    /** Adds one ended request; {@code lagNanos} is how late it was sent after its intended time (0 in a closed loop). */
    public void add(RequestMetrics request, long lagNanos) {
        Objects.requireNonNull(request, "request");
        requests++;
        for (int i = 0; i < tallies.length; i++) {
            SloObjective o = objectives.get(i);
            Tally t = tallies[i];
            if (o instanceof SloObjective.ErrorRate) {
                if (request.failureKind() == FailureKind.CANCELLED) continue;
                t.n++;
                if (!request.succeeded()) t.misses++;
            } else if (o instanceof SloObjective.Percentile p) {
                for (double v : values(p.metric(), request, lagNanos, p.bound().toNanos())) t.add(v);
                if (p.metric() == SloMetric.ITL) t.addMissSpans(request, p.bound().toNanos());
            } else {
                SloObjective.Attainment a = (SloObjective.Attainment) o;
                long boundNanos = a.bound().toNanos();
                // a failure's values are +inf; a cancelled request's are those it had (the values() censoring)
                double[] values = values(a.metric(), request, lagNanos, boundNanos);
                if (values.length == 0) {
                    if (request.succeeded()) t.n++; // e.g. ITL of a one-event response: nothing to miss
                    continue; // cancelled, not yet past the bound: unknown, left out
                }
                boolean good = true;
                for (double v : values) good &= v <= boundNanos;
                // a cancelled request's ITL gaps so far within the bound do not make the request good: the rest
                // of its gaps are unknown (its TTFT, once arrived, is known whole)
                if (good && a.metric() == SloMetric.ITL && request.failureKind() == FailureKind.CANCELLED) continue;
                t.n++;
                if (!good) t.misses++;
            }
        }
    }

    /**
     * The verdict on the requests so far. Early, only a resolved verdict ends a level; at its end ({@code last})
     * an unresolved objective is decided by its point estimate.
     */
    public LevelJudgement judge() {
        boolean enough = requests >= minSamples;
        List<ObjectiveResult> results = new ArrayList<>();
        for (int i = 0; i < tallies.length; i++) results.add(judge(objectives.get(i), tallies[i], enough));
        boolean passed = results.stream().allMatch(ObjectiveResult::passed);
        boolean resolved = results.stream().anyMatch(r -> r.resolved() && !r.passed())
                || results.stream().allMatch(ObjectiveResult::resolved);
        return new LevelJudgement(requests, passed, resolved, results);
    }

    private static ObjectiveResult judge(SloObjective o, Tally t, boolean enough) {
        if (o instanceof SloObjective.Percentile p) {
            int n = t.size;
            double limit = p.limit();
            if (n == 0) return new ObjectiveResult(o.key(), 0, 0, Double.NaN, Double.NaN, Double.NaN, limit, "ms",
                    false, false);
            double[] sorted = Arrays.copyOf(t.values, n); // ns
            Arrays.sort(sorted);
            double q = p.percentile() / 100;
            // the tables' definition, interpolated in ns and then converted, as the summary does: the same figure
            double estimate = Percentiles.ofSorted(sorted, p.percentile()) / 1e6;
            long boundNanos = p.bound().toNanos();
            int misses = 0;
            for (int i = 0; i < n; i++) if (sorted[i] > boundNanos) misses++;
            // ITL misses that share one instant across streams (a stall of the server or of the client) are one
            // event, not independent samples: the interval is taken over as many samples as that leaves
            // independent (n × events / misses, the miss share kept), which widens it on both sides
            int events = p.metric() == SloMetric.ITL ? Math.min(misses, t.missEvents()) : misses;
            int effective = events < misses ? Math.max(1, (int) Math.round((double) n * events / misses)) : n;
            int[] ranks = SearchStatistics.quantileRanks(effective, q, ALPHA);
            double low = ranks[0] == 0 ? Double.NaN
                    : sorted[Math.max(1, (int) Math.floor((double) ranks[0] * n / effective)) - 1] / 1e6;
            double high = ranks[1] == effective + 1 ? Double.POSITIVE_INFINITY
                    : sorted[Math.min(n, (int) Math.ceil((double) ranks[1] * n / effective)) - 1] / 1e6;
            boolean meets = enough && high <= limit;
            boolean misses95 = enough && !Double.isNaN(low) && low > limit;
            boolean passed = meets || (!misses95 && estimate <= limit);
            return new ObjectiveResult(o.key(), n, misses, estimate, low, high, limit, "ms", passed,
                    meets || misses95, events);
        }
        double[] ci = SearchStatistics.wilson(t.misses, t.n, SearchStatistics.Z95);
        if (o instanceof SloObjective.ErrorRate e) {
            double rate = t.n == 0 ? Double.NaN : (double) t.misses / t.n;
            boolean meets = enough && t.n > 0 && ci[1] <= e.maxRate();
            boolean misses95 = enough && t.n > 0 && ci[0] > e.maxRate();
            boolean passed = meets || (!misses95 && (t.n == 0 || rate <= e.maxRate()));
            return new ObjectiveResult(o.key(), t.n, t.misses, rate, t.n == 0 ? Double.NaN : ci[0],
                    t.n == 0 ? Double.NaN : ci[1], e.maxRate(), "fraction", passed, meets || misses95);
        }
        SloObjective.Attainment a = (SloObjective.Attainment) o;
        double attained = t.n == 0 ? Double.NaN : 1 - (double) t.misses / t.n;
        double low = t.n == 0 ? Double.NaN : 1 - ci[1];
        double high = t.n == 0 ? Double.NaN : 1 - ci[0];
        boolean meets = enough && t.n > 0 && low >= a.target();
        boolean misses95 = enough && t.n > 0 && high < a.target();
        boolean passed = meets || (!misses95 && t.n > 0 && attained >= a.target());
        return new ObjectiveResult(o.key(), t.n, t.misses, attained, low, high, a.target(), "fraction", passed,
                meets || misses95);
    }

    /**
     * The request's values of {@code metric} in ns: +∞ for a failure (and a success without the value); a cancelled
     * request gives what it had measured (its TTFT once the first token arrived, its gaps so far for ITL), else +∞
     * when it had already outlived a TTFT or E2E bound, else nothing (TPOT: always nothing).
     */
    private static double[] values(SloMetric metric, RequestMetrics r, long lagNanos, long boundNanos) {
        boolean cancelled = r.failureKind() == FailureKind.CANCELLED;
        long elapsed = lagNanos + r.e2eNanos();
        switch (metric) {
            case TTFT -> {
                if (r.ttftNanos().isPresent() && (r.succeeded() || cancelled)) {
                    return new double[]{lagNanos + r.ttftNanos().getAsLong()};
                }
                if (cancelled) return elapsed > boundNanos ? new double[]{Double.POSITIVE_INFINITY} : new double[0];
                return new double[]{Double.POSITIVE_INFINITY};
            }
            case E2E -> {
                if (r.succeeded()) return new double[]{elapsed};
                if (cancelled) return elapsed > boundNanos ? new double[]{Double.POSITIVE_INFINITY} : new double[0];
                return new double[]{Double.POSITIVE_INFINITY};
            }
            case TPOT -> {
                if (cancelled) return new double[0];
                if (!r.succeeded()) return new double[]{Double.POSITIVE_INFINITY};
                if (r.tpotNanos().isPresent()) return new double[]{r.tpotNanos().getAsDouble()};
                boolean nothingToDecode = r.outputTokens().isPresent() && r.outputTokens().getAsInt() <= 1;
                return new double[]{nothingToDecode ? 0 : Double.POSITIVE_INFINITY};
            }
            case ITL -> {
                if (!r.succeeded() && !cancelled) return new double[]{Double.POSITIVE_INFINITY};
                long[] gaps = r.itlNanos();
                double[] out = new double[gaps.length];
                for (int i = 0; i < gaps.length; i++) out[i] = gaps[i];
                return out;
            }
            default -> throw new AssertionError(metric);
        }
    }

    /** One objective's samples: values in ns (percentiles) or counts (proportions). */
    private static final class Tally {
        double[] values = new double[64];
        int size;
        int n;
        int misses;
        /** Each ITL miss's gap as [start, end] in ns of the epoch, for the instants misses share. */
        final List<long[]> missSpans = new ArrayList<>();
        /** ITL misses with no instant: a failure's (+∞), each an event of its own. */
        int lonelyMisses;

        void add(double v) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2);
            values[size++] = v;
        }

        /** Records the instants of {@code r}'s gaps past {@code boundNanos} (a failure: one miss of its own). */
        void addMissSpans(RequestMetrics r, long boundNanos) {
            boolean cancelled = r.failureKind() == FailureKind.CANCELLED;
            if (!r.succeeded() && !cancelled) {
                lonelyMisses++;
                return;
            }
            if (r.ttftNanos().isEmpty()) return;
            long at = r.startEpochMicros() * 1000 + r.ttftNanos().getAsLong(); // the first content event
            for (long gap : r.itlNanos()) {
                if (gap > boundNanos) missSpans.add(new long[]{at, at + gap});
                at += gap;
            }
        }

        /**
         * The fewest instants that every missed gap spans one of (greedy interval stabbing: the earliest end not yet
         * covered, then every gap open at it), plus the lonely misses. A stream's own gaps never overlap, so one
         * instant holds at most one miss per stream: a server slow throughout still counts at least misses / streams
         * events, never one.
         */
        int missEvents() {
            List<long[]> spans = new ArrayList<>(missSpans);
            spans.sort(Comparator.comparingLong(span -> span[1]));
            int events = 0;
            long stab = Long.MIN_VALUE;
            for (long[] span : spans) {
                if (span[0] < stab && stab <= span[1]) continue; // open at the last instant chosen
                stab = span[1];
                events++;
            }
            return events + lonelyMisses;
        }
    }
}
