package io.llmperf4j.cli;

import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.trace.Trace;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.LoadPlan;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The load of {@code --trace}: an open loop whose arrivals are the trace's own (scaled) timestamps; its nominal rate
 * is the trace's mean, its request count the trace's, and its time limit the trace's span (rounded up to whole
 * seconds) plus {@code --timeout}, as the console and the summary's {@code timeout_s} say. Its
 * arrival is {@link Arrival.Trace}, so every description of the run names the trace, not drawn arrivals.
 */
final class TraceReplay {
    private TraceReplay() {
    }

    /** The trace as replayed: read, sped up and cut as the flags say. */
    static Trace load(TraceFlags flags) {
        try {
            return Trace.load(flags.trace).scaled(flags.traceSpeedup, cut(flags));
        } catch (DatasetFormatException | IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    static LoadPlan plan(Trace trace, TraceFlags flags, LoadPlan given, CommonSettings common) {
        if (given.kind() != LoadPlan.Kind.CLOSED_LOOP || given.harness() != null
                || !(given.warmup() instanceof Warmup.None)) {
            throw new UsageException("--trace sends on the trace's timestamps: it goes without --request-rate, "
                    + "--rate-sweep, --concurrency-sweep, warmup and iteration flags");
        }
        Duration cut = cut(flags);
        int n = trace.requests().size();
        long spanMs = trace.spanMs();
        // trace-stats's mean rate; a trace at one timestamp has none, and the open loop wants a positive nominal
        // rate (its arrivals are the trace's own): the request count stands in
        double rate = spanMs == 0 ? n : trace.meanRequestsPerSecond();
        Duration timeout = Duration.ofSeconds(limitSeconds(trace, common.timeoutSeconds()));
        Arrival arrival = new Arrival.Trace(flags.trace, n, Duration.ofMillis(spanMs), flags.traceSpeedup, cut);
        LoadProfile profile = new LoadProfile.OpenLoop(rate, arrival, 0, OptionalInt.of(n),
                Optional.empty(), timeout, OptionalInt.empty());
        return new LoadPlan(true, given.models(), LoadPlan.Kind.OPEN_LOOP, profile, Warmup.NONE, null,
                given.rules(), given.pause(), LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS, 0, true);
    }

    /**
     * The run's time limit, whole seconds: the trace's (sped-up) span, rounded up, plus --timeout, the time the
     * requests get after the last arrival. --timeout alone would cut a trace longer than its default 90 s.
     */
    static int limitSeconds(Trace trace, int timeoutSeconds) {
        return Math.addExact((int) ((trace.spanMs() + 999) / 1000), timeoutSeconds);
    }

    /**
     * "trace replay: run time limit 4 s = the trace's span 3 s + --timeout 1 s"; a span of a fraction of a second:
     * "... = the trace's span (2.5 s, rounded up to 3 s) + --timeout 1 s".
     */
    static String describeLimit(Trace trace, int limitSeconds, int timeoutSeconds) {
        String span = Arrival.Trace.significant(trace.spanMs() / 1000.0) + " s";
        if (trace.spanMs() % 1000 != 0) span = "(" + span + ", rounded up to " + (limitSeconds - timeoutSeconds) + " s)";
        return "trace replay: run time limit " + limitSeconds + " s = the trace's span " + span + " + --timeout "
                + timeoutSeconds + " s";
    }

    private static Duration cut(TraceFlags flags) {
        // to the nanosecond: rounded to whole ms, --trace-duration 0.0001 cut at 0 and kept no request
        return flags.traceDuration == null ? null : Duration.ofNanos(Math.round(flags.traceDuration * 1e9));
    }
}
