package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.EventTokenCounts;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * Runs JMH-style iterations at one load point. Per fork: a fresh client (a new connection pool; with another
 * {@link ForkRunner}, a fresh run on the workers of a cluster), continuous load for
 * {@link HarnessSettings#forkTime()} (the load point's own stop conditions and warmup are replaced: a closed loop
 * keeps its concurrency with no request limit, an open loop keeps its rate, arrivals, seed and cap), requests still
 * in flight at the end cancelled (at the last window's end: the tokens they received count where they arrived), then
 * the run is cut into warmup and measurement windows. Each fork sends the
 * requests it is given: a list is looped over for as long as the fork runs (a workload meant to be sent again); a
 * {@link io.llmperf4j.engine.load.FreshRequests} gives every send a request of its own, so that no iteration finds an
 * earlier one's prompts in the server's prefix cache.
 * {@link #stop()} ends the current fork (windows that ended before the stop are kept) and runs no more forks.
 */
public final class HarnessRunner {

    private final ForkRunner forkRunner;
    private final ToIntFunction<RequestRecord> outputTokens;
    private final Function<RequestRecord, EventTokenCounts> eventTokens;
    /** n is the server's usage where sent: a request without usage is counted in the server's tokens per event. */
    private final boolean inServerUnits;
    private final Object lock = new Object();
    private boolean stopped;      // guarded by lock

    /**
     * Forks on this machine, a request's tokens spread evenly over its content events in the tok/s score.
     *
     * @param clients      a new client per fork; the harness closes it after the fork
     * @param tokenCounter fills each record's client-side output token count
     * @param outputTokens the count used for the tok/s score
     */
    public HarnessRunner(Supplier<? extends LlmClient> clients, TokenCounter tokenCounter,
                         ToIntFunction<RequestRecord> outputTokens) {
        this(new ClientForks(clients, tokenCounter), outputTokens);
    }

    /**
     * Forks on this machine, counting by {@code policy} as the summary does: a request's n, spread over its content
     * events as the tokens each carried ({@link EventTokenCounts}); a request that ended without the server's usage
     * (cut at the fork's end, failed mid-stream), when the policy prefers usage, at the server's tokens per content
     * event over the fork ({@link io.llmperf4j.model.ServerTokensPerEvent}).
     */
    public HarnessRunner(Supplier<? extends LlmClient> clients, TokenCounter tokenCounter, OutputTokenPolicy policy) {
        this(new ClientForks(clients, tokenCounter), policy);
    }

    /**
     * A request's tokens spread evenly over its content events in the tok/s score (no per-event counts are known
     * for an arbitrary count).
     *
     * @param forks        runs each fork's load and fills each record's client-side output token count
     * @param outputTokens the count used for the tok/s score
     */
    public HarnessRunner(ForkRunner forks, ToIntFunction<RequestRecord> outputTokens) {
        this(forks, outputTokens, r -> EventTokenCounts.NONE, false);
    }

    /** Counting by {@code policy} as the summary does (see the constructor with clients). */
    public HarnessRunner(ForkRunner forks, OutputTokenPolicy policy) {
        this(forks, policy::outputTokensOrZero, policy::eventTokens, policy.preferServerUsage());
    }

    private HarnessRunner(ForkRunner forks, ToIntFunction<RequestRecord> outputTokens,
                          Function<RequestRecord, EventTokenCounts> eventTokens, boolean inServerUnits) {
        this.forkRunner = Objects.requireNonNull(forks, "forks");
        this.outputTokens = Objects.requireNonNull(outputTokens, "outputTokens");
        this.eventTokens = eventTokens;
        this.inServerUnits = inServerUnits;
    }

    /**
     * Runs every fork on the calling thread.
     *
     * @param benchmark  the name in reports
     * @param userParams extra JMH params (scenario, ISL/OSL …), after the load's own
     */
    public HarnessResult run(String benchmark, Map<String, String> userParams, List<RequestSpec> specs,
                             LoadSettings point, HarnessSettings settings, HarnessListener listener) {
        return run(benchmark, userParams, fork -> specs, point, settings, listener);
    }

    /** As above, fork {@code f} (0-based) sending {@code forkSpecs.apply(f)}. */
    public HarnessResult run(String benchmark, Map<String, String> userParams,
                             IntFunction<List<RequestSpec>> forkSpecs, LoadSettings point, HarnessSettings settings,
                             HarnessListener listener) {
        Objects.requireNonNull(benchmark, "benchmark");
        Objects.requireNonNull(point, "point");
        Objects.requireNonNull(settings, "settings");
        HarnessListener l = listener == null ? HarnessListener.NONE : listener;
        Map<String, String> params = new LinkedHashMap<>(point.params());
        params.putAll(userParams == null ? Map.of() : userParams);
        LoadSettings forkLoad = forkLoad(point, settings.forkTime());
        l.onRunStart(benchmark, params, point, settings);
        List<ForkResult> forks = new ArrayList<>();
        boolean aborted = false;
        for (int f = 1; f <= settings.forks(); f++) {
            synchronized (lock) {
                if (stopped) {
                    aborted = true;
                    break;
                }
            }
            l.onForkStart(f, settings.forks());
            LoadResult load = forkRunner.run(forkSpecs.apply(f - 1), forkLoad, l);
            boolean forkAborted = load.stopped();
            ForkResult fork = IterationSlicer.slice(f, load, settings, outputTokens, eventTokens, inServerUnits,
                    forkAborted);
            forks.add(fork);
            fork.warmup().forEach(l::onIteration);
            fork.measurement().forEach(l::onIteration);
            l.onForkEnd(fork);
            if (forkAborted) {
                aborted = true;
                break;
            }
        }
        HarnessResult result = new HarnessResult(benchmark, params, settings, point, forks, aborted);
        l.onRunEnd(result);
        return result;
    }

    /** Ends the current fork early and runs no more; any thread. */
    public void stop() {
        synchronized (lock) {
            stopped = true;
        }
        forkRunner.stop();
    }

    /** The load point with the harness's stop conditions: continuous load for {@code forkTime}, no warmup. */
    public static LoadSettings forkLoad(LoadSettings point, Duration forkTime) {
        if (point instanceof ClosedLoopSettings c) {
            return new ClosedLoopSettings(c.concurrency(), OptionalInt.of(Integer.MAX_VALUE), forkTime, Warmup.NONE,
                    c.promptOrder());
        }
        if (point instanceof OpenLoopSettings o) {
            return new OpenLoopSettings(o.requestsPerSecond(), o.arrival(), o.seed(), OptionalInt.empty(),
                    Optional.of(forkTime), forkTime, o.maxConcurrency(), Warmup.NONE);
        }
        throw new AssertionError("unknown settings " + point.getClass());
    }
}
