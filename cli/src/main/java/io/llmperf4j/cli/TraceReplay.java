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
 * is the trace's mean, its request count the trace's, and its time limit the trace's span plus {@code --timeout}. Its
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
        double rate = n < 2 || spanMs == 0 ? n : (n - 1) / (spanMs / 1000.0);
        Duration timeout = Duration.ofSeconds(common.timeoutSeconds()).plusMillis(spanMs);
        Arrival arrival = new Arrival.Trace(flags.trace, n, Duration.ofMillis(spanMs), flags.traceSpeedup, cut);
        LoadProfile profile = new LoadProfile.OpenLoop(rate, arrival, 0, OptionalInt.of(n),
                Optional.empty(), timeout, OptionalInt.empty());
        return new LoadPlan(true, given.models(), LoadPlan.Kind.OPEN_LOOP, profile, Warmup.NONE, null,
                given.rules(), given.pause(), LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS, 0, true);
    }

    private static Duration cut(TraceFlags flags) {
        return flags.traceDuration == null ? null : Duration.ofMillis(Math.round(flags.traceDuration * 1000));
    }
}
