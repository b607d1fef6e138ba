package io.llmperf4j.report.search;

import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.SloObjective;

import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * The {@code --slo} verdict of a run that is not a capacity search (a plain run, an open loop, each level of a sweep):
 * its recorded requests judged once, at the end, by the search's own {@link LevelJudge} (one rule): per objective the
 * point estimate, its 95 % interval and whether it holds; the verdict is resolved where the interval lies wholly on
 * one side of the limit, else decided by the estimate. Cancelled requests are censored as in goodput, and an open
 * loop's TTFT and E2E count from the intended send.
 */
public final class RunVerdict {

    /**
     * Requests before any objective is resolved; the capacity search's default {@code --search-min-samples} is this
     * one ({@code SearchPlan.DEFAULT_MIN_SAMPLES}), so a plain run and a search level of the same size read alike.
     */
    public static final int MIN_SAMPLES = 30;

    private RunVerdict() {
    }

    /**
     * Judges {@code requests} (every recorded one, failures and cancellations included, in record order) against
     * {@code objectives}; empty without objectives.
     *
     * @param sendLagNanos each request's send lag (actual minus intended send, ns), or null for a closed loop
     */
    public static Optional<LevelJudgement> of(List<SloObjective> objectives, List<RequestMetrics> requests,
                                              ToLongFunction<RequestMetrics> sendLagNanos) {
        if (objectives.isEmpty()) return Optional.empty();
        LevelJudge judge = new LevelJudge(objectives, MIN_SAMPLES);
        for (RequestMetrics r : requests) {
            judge.add(r, sendLagNanos == null ? 0 : Math.max(0, sendLagNanos.applyAsLong(r)));
        }
        return Optional.of(judge.judge());
    }
}
