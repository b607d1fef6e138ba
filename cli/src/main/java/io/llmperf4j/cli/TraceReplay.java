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
import java.util.function.Predicate;

/**
 * The load of {@code --trace}: an open loop whose arrivals are the trace's own (scaled) timestamps; its nominal rate
 * is the trace's mean arrival rate (with sessions, session starts per second: a later turn is paced by its
 * {@code delay}, not its timestamp), its request count the trace's, and its time limit the time its last request
 * falls due (without sessions its span; with them the latest session start plus that session's delays), rounded up
 * to whole seconds, plus {@code --timeout}, as the console and the summary's {@code timeout_s} say. Its
 * arrival is {@link Arrival.Trace}, so every description of the run names the trace, not drawn arrivals. Like any
 * open loop it may be capped ({@code --max-concurrency}, as vLLM bench and AIPerf cap a replay): a request due while
 * the cap is full waits for a free slot, and its send lag shows the wait.
 */
final class TraceReplay {
    private TraceReplay() {
    }

    /** The trace as replayed: read, sped up and cut as the flags say. */
    static Trace load(TraceFlags flags) {
        try {
            return Trace.load(flags.trace).scaled(flags.traceSpeedup, start(flags), cut(flags));
        } catch (DatasetFormatException | IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * Refuses the flags a replay has no use for, each in one line naming what to give instead, rather than running
     * without them: the trace sets the arrivals, the request count and the length. Called before the load flags are
     * checked, whose messages speak of a closed loop.
     */
    static void refuseFlags(LoadFlags f, Predicate<String> given) {
        String replay = " does not apply to a trace replay";
        if (given.test("--num-concurrent-requests")) {
            throw new UsageException("--num-concurrent-requests" + replay + " (an open loop: requests go out on the "
                    + "trace's timestamps); to cap the requests in flight give --max-concurrency N");
        }
        if (given.test("--max-num-completed-requests")) {
            throw new UsageException("--max-num-completed-requests" + replay + ": the whole trace is sent, its "
                    + "request count is the run's (keep its first S seconds with --trace-duration S)");
        }
        if (f.duration != null) {
            throw new UsageException("--duration" + replay + ": its length is the trace's (keep its first S seconds "
                    + "with --trace-duration S)");
        }
        for (String flag : new String[] {"--arrival", "--burstiness", "--arrival-seed"}) {
            if (given.test(flag)) {
                throw new UsageException(flag + replay + ": its arrivals are the trace's timestamps (speed them up "
                        + "with --trace-speedup X)");
            }
        }
    }

    static LoadPlan plan(Trace trace, TraceFlags flags, LoadFlags load, LoadPlan given, CommonSettings common) {
        if (given.kind() != LoadPlan.Kind.CLOSED_LOOP || given.harness() != null
                || !(given.warmup() instanceof Warmup.None)) {
            throw new UsageException("--trace sends on the trace's timestamps: it goes without --request-rate, "
                    + "--rate-sweep, --concurrency-sweep, warmup and iteration flags");
        }
        Duration cut = cut(flags);
        Duration start = start(flags);
        int n = trace.requests().size();
        long spanMs = trace.spanMs();
        // trace-stats's mean arrival rate (with sessions, their starts); arrivals at one timestamp have none, and the
        // open loop wants a positive nominal rate (its arrivals are the trace's own): their count stands in
        double rate = trace.arrivalSpanMs() == 0 ? trace.arrivals().size() : trace.meanArrivalsPerSecond();
        Duration timeout = Duration.ofSeconds(limitSeconds(trace, common.timeoutSeconds()));
        // a request without a session is an arrival of its own, not a session (as trace-stats counts them)
        int singles = (int) trace.arrivals().stream().filter(r -> r.sessionId() == null).count();
        Arrival arrival = trace.hasSessions() ? new Arrival.Trace(flags.trace, n, Duration.ofMillis(spanMs),
                flags.traceSpeedup, cut, trace.arrivals().size() - singles, Duration.ofMillis(trace.arrivalSpanMs()),
                singles, start)
                : new Arrival.Trace(flags.trace, n, Duration.ofMillis(spanMs), flags.traceSpeedup, cut, 0, null, 0,
                start);
        // the open loop's cap (checked >= 1 with the load flags): the client opens that many connections
        OptionalInt cap = load.maxConcurrency == null ? OptionalInt.empty() : OptionalInt.of(load.maxConcurrency);
        LoadProfile profile = new LoadProfile.OpenLoop(rate, arrival, 0, OptionalInt.of(n),
                Optional.empty(), timeout, cap);
        return new LoadPlan(true, given.models(), LoadPlan.Kind.OPEN_LOOP, profile, Warmup.NONE, null,
                given.rules(), given.pause(), cap.orElse(LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS), 0, true,
                trace.hasSessions());
    }

    /**
     * The run's time limit, whole seconds: when the trace's last request falls due ({@link Trace#lastDueMs()}: its
     * (sped-up) span, or with sessions the latest session start plus that session's delays), rounded up, plus
     * --timeout, the time the requests get after it (the replies a session waits for included). --timeout alone
     * would cut a trace longer than its default 90 s; the span alone cut sessions whose delays outlast it.
     */
    static int limitSeconds(Trace trace, int timeoutSeconds) {
        return Math.addExact((int) Math.min(Integer.MAX_VALUE, (trace.lastDueMs() + 999) / 1000), timeoutSeconds);
    }

    /**
     * "trace replay: run time limit 4 s = the trace's span 3 s + --timeout 1 s"; a span of a fraction of a second:
     * "... = the trace's span (2.5 s, rounded up to 3 s) + --timeout 1 s"; with sessions: "... = its last turn due at
     * 3.1 s (a session's start plus its turns' delays, rounded up to 4 s) + --timeout 1 s".
     */
    static String describeLimit(Trace trace, int limitSeconds, int timeoutSeconds) {
        long dueMs = trace.lastDueMs();
        String rounded = dueMs % 1000 != 0 ? ", rounded up to " + (limitSeconds - timeoutSeconds) + " s" : "";
        String due = Arrival.Trace.significant(dueMs / 1000.0) + " s";
        String what;
        if (trace.hasSessions()) {
            what = "its last turn due at " + due + " (a session's start plus its turns' delays" + rounded + ")";
        } else {
            what = "the trace's span " + (rounded.isEmpty() ? due : "(" + due + rounded + ")");
        }
        return "trace replay: run time limit " + limitSeconds + " s = " + what + " + --timeout " + timeoutSeconds
                + " s";
    }

    /**
     * "trace replay: 1 failed row of burstgpt:FILE skipped (Response tokens 0), as vLLM's BurstGPT loader drops
     * them", or empty when no row was skipped: what was left out of the replay is said, not hidden.
     */
    static Optional<String> skippedRows(Trace trace, TraceFlags flags) {
        int n = trace.failedRows();
        return n == 0 ? Optional.empty() : Optional.of("trace replay: " + n + (n == 1 ? " failed row of " : " failed "
                + "rows of ") + flags.trace + " skipped (Response tokens 0), as vLLM's BurstGPT loader drops them");
    }

    private static Duration cut(TraceFlags flags) {
        return seconds(flags.traceDuration);
    }

    private static Duration start(TraceFlags flags) {
        return seconds(flags.traceStart);
    }

    /**
     * Refuses a --trace-start below 0 and a --trace-duration not above 0 (null: not given), for token-benchmark and
     * trace-stats alike; a start beyond the trace's end is refused when the trace is read (its length is known then).
     */
    static void checkWindow(Double start, Double duration) {
        if (start != null && !(start >= 0)) {
            throw new UsageException("--trace-start must be >= 0 (seconds into the trace, from its first request)");
        }
        if (duration != null && !(duration > 0)) throw new UsageException("--trace-duration must be > 0");
    }

    /** A flag's seconds, to the nanosecond (rounded to whole ms, --trace-duration 0.0001 cut at 0 and kept no request). */
    static Duration seconds(Double s) {
        return s == null ? null : Duration.ofNanos(Math.round(s * 1e9));
    }
}
