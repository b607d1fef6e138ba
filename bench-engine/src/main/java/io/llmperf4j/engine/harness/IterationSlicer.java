package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.EventTokenCounts;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.WindowTokens;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/** Cuts a fork's continuous run into its iteration windows (see {@link IterationResult} for the attribution). */
final class IterationSlicer {

    private IterationSlicer() {
    }

    /**
     * @param outputTokens a request's n, the tok/s score's count
     * @param eventTokens  the tokens each content event carried, by n's source: a window that cuts a request gets
     *                     the tokens of its events inside it, as the summary's {@code output_tokens_delivered} does;
     *                     {@link EventTokenCounts#NONE} spreads n evenly over the events
     */
    static ForkResult slice(int fork, LoadResult load, HarnessSettings settings,
                            ToIntFunction<RequestRecord> outputTokens,
                            Function<RequestRecord, EventTokenCounts> eventTokens, boolean aborted) {
        return slice(fork, load, settings, outputTokens, eventTokens, false, aborted);
    }

    /**
     * As above; with {@code inServerUnits} (n is the server's usage where sent) a request that ended without usage
     * counts the server's tokens per content event of the fork for each content event it received, so that it is
     * counted in the unit of the others: the one rule of a window's tokens, {@link WindowTokens}.
     */
    static ForkResult slice(int fork, LoadResult load, HarnessSettings settings,
                            ToIntFunction<RequestRecord> outputTokens,
                            Function<RequestRecord, EventTokenCounts> eventTokens, boolean inServerUnits,
                            boolean aborted) {
        int warmups = settings.warmup().count();
        int windows = warmups + settings.measurement().count();
        long[] bounds = new long[windows + 1];
        for (int k = 0; k < windows; k++) {
            long len = k < warmups ? settings.warmup().timeNanos() : settings.measurement().timeNanos();
            bounds[k + 1] = bounds[k] + len;
        }
        double[] tokens = new double[windows];
        int[] completed = new int[windows];
        int[] failed = new int[windows];
        List<List<Double>> ttft = lists(windows);
        List<List<Double>> tpot = lists(windows);
        List<List<Double>> e2e = lists(windows);

        // every token that arrived counts where it arrived: finished, cut at the fork's end or failed mid-stream
        WindowTokens arrivals = WindowTokens.of(load.timeline().stream().map(ScheduledRecord::record).toList(),
                outputTokens, eventTokens, inServerUnits);
        for (ScheduledRecord r : load.timeline()) {
            RequestRecord rec = r.record();
            long send = r.actualSendOffsetNanos();
            boolean cancelled = cancelled(rec);
            int n = Math.max(0, outputTokens.applyAsInt(rec));
            arrivals.forEachArrival(rec, (offset, share) -> {
                int w = window(bounds, send + offset);
                if (w >= 0) tokens[w] += share;
            });
            if (rec.e2eNanos() < 0) continue;
            int w = window(bounds, r.endOffsetNanos());
            if (w < 0) continue;
            if (rec.succeeded()) {
                completed[w]++;
                if (r.ttftFromIntendedNanos() >= 0) ttft.get(w).add(r.ttftFromIntendedNanos() / 1e6);
                e2e.get(w).add(r.e2eFromIntendedNanos() / 1e6);
                // the summary's definition, with this count: the server's includes reasoning tokens
                OptionalInt server = OutputTokenPolicy.serverOutputTokens(rec);
                OutputTokenPolicy.tpotNanos(rec, n, server.isPresent() && server.getAsInt() == n)
                        .ifPresent(t -> tpot.get(w).add(t / 1e6));
            } else if (!cancelled) {
                failed[w]++;
            }
        }

        long end = load.endOffsetNanos();
        List<IterationResult> warmup = new ArrayList<>();
        List<IterationResult> measurement = new ArrayList<>();
        for (int k = 0; k < windows; k++) {
            if (aborted && bounds[k + 1] > end) break; // the stop cut this window short
            boolean isWarmup = k < warmups;
            IterationResult it = new IterationResult(fork, isWarmup ? IterationType.WARMUP : IterationType.MEASUREMENT,
                    isWarmup ? k + 1 : k - warmups + 1, bounds[k], bounds[k + 1] - bounds[k], tokens[k],
                    completed[k], failed[k], toArray(ttft.get(k)), toArray(tpot.get(k)), toArray(e2e.get(k)));
            (isWarmup ? warmup : measurement).add(it);
        }
        return new ForkResult(fork, warmup, measurement, load, aborted);
    }

    /**
     * The requests a fork's measured iterations count (requestsCompleted and requestsFailed): those that ended in a
     * measurement window it kept, successes and failures alike; requests cancelled at the fork's end are neither.
     */
    static List<RequestRecord> measuredRecords(ForkResult fork) {
        List<RequestRecord> measured = new ArrayList<>();
        for (ScheduledRecord r : fork.load().timeline()) {
            RequestRecord rec = r.record();
            if (rec.e2eNanos() < 0 || cancelled(rec)) continue;
            long end = r.endOffsetNanos();
            for (IterationResult it : fork.measurement()) {
                if (end >= it.startOffsetNanos() && end < it.startOffsetNanos() + it.durationNanos()) {
                    measured.add(rec);
                    break;
                }
            }
        }
        return measured;
    }

    /** Cancelled at the fork's end (or by a stop): not a failure of the server's. */
    private static boolean cancelled(RequestRecord rec) {
        return !rec.succeeded() && rec.failure().kind() == FailureKind.CANCELLED;
    }

    /** The window holding {@code t}, or -1 outside every window. */
    private static int window(long[] bounds, long t) {
        if (t < bounds[0] || t >= bounds[bounds.length - 1]) return -1;
        int i = Arrays.binarySearch(bounds, t);
        return i >= 0 ? i : -i - 2;
    }

    private static List<List<Double>> lists(int n) {
        List<List<Double>> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) l.add(new ArrayList<>());
        return l;
    }

    private static double[] toArray(List<Double> l) {
        return l.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
