package io.llmperf4j.report.summary;

import io.llmperf4j.report.search.LevelJudge;
import io.llmperf4j.report.search.LevelJudgement;
import io.llmperf4j.report.search.ObjectiveResult;
import io.llmperf4j.report.search.RunVerdict;

import java.util.List;

/**
 * The summary's optional {@code slo} section: the run judged against its {@code --slo} objectives by the capacity
 * search's rule ({@link RunVerdict}); absent without objectives. Numbers that do not exist (no samples, an interval
 * without an end) are null.
 *
 * @param passed           every objective holds (by its interval when resolved, else by its estimate)
 * @param resolved         the verdict is backed by the 95 % intervals: a resolved objective fails, or all are resolved
 * @param requests         the requests judged (recorded, less none: cancellations are censored per objective)
 * @param minSamples       requests before any objective may be resolved
 * @param confidence       of each interval (0.95)
 * @param fromIntendedSend TTFT and E2E counted from the intended send (an open loop, or sessions)
 * @param objectives       one per objective, in the order given
 */
public record SloVerdictJson(boolean passed, boolean resolved, int requests, int minSamples, double confidence,
                             boolean fromIntendedSend, List<ObjectiveJson> objectives) {

    public SloVerdictJson {
        objectives = List.copyOf(objectives);
    }

    /** The section of {@code judgement}; null when there is none. */
    static SloVerdictJson of(LevelJudgement judgement, boolean fromIntendedSend) {
        if (judgement == null) return null;
        return new SloVerdictJson(judgement.passed(), judgement.resolved(), judgement.samples(), RunVerdict.MIN_SAMPLES,
                1 - LevelJudge.ALPHA, fromIntendedSend, judgement.results().stream().map(ObjectiveJson::of).toList());
    }

    /**
     * One objective.
     *
     * @param objective as written, normalized ("ttft_p99<=500ms")
     * @param estimate  the percentile in ms, or the attainment or error rate as a fraction
     * @param low       the 95 % interval's lower end
     * @param high      its upper end (null when unbounded: too few samples for that percentile)
     * @param limit     the bound in the estimate's unit
     * @param unit      "ms" or "fraction"
     * @param passed    the objective holds
     * @param resolved  the interval lies wholly on one side of the limit (else judged by the estimate)
     * @param samples   the samples judged (requests; inter-token gaps for ITL)
     * @param misses    samples past the bound (failed requests for the error rate)
     */
    public record ObjectiveJson(String objective, Double estimate, Double low, Double high, double limit, String unit,
                                boolean passed, boolean resolved, int samples, int misses) {
        static ObjectiveJson of(ObjectiveResult r) {
            return new ObjectiveJson(r.objective(), SummaryDocument.num(r.estimate()), SummaryDocument.num(r.low()),
                    SummaryDocument.num(r.high()), r.limit(), r.unit(), r.passed(), r.resolved(), r.samples(),
                    r.misses());
        }
    }
}
