package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.llmperf4j.report.search.ObjectiveResult;
import org.junit.jupiter.api.Test;

/** The search's verdict line names the level its binding estimate belongs to, and what each confidence is. */
class SearchVerdictTest {

    private static final ObjectiveResult FAILING = new ObjectiveResult("ttft_p90<=50ms", 40, 9, 53.7, 50.2, 61.2, 50,
            "ms", false, true);

    @Test
    void theEstimateIsTheFirstFailingLevelsAndBothConfidencesAreNamed() {
        assertEquals("capacity: concurrency 4 (fails at 5; the bracket [4, 5] holds with 90 % confidence, each "
                        + "level's verdict at 95 %); binding objective at the first failing level, concurrency 5: "
                        + "ttft_p90<=50ms (estimate 53.7 ms, 95 % interval [50.2 ms, 61.2 ms])",
                SearchRun.foundVerdict(false, "concurrency", "concurrency", 4, 5, 0.9, FAILING));
    }

    @Test
    void aRateAndAPointEstimate() {
        assertEquals("capacity: rate 8 req/s (fails at 12; a level decided on its point estimate); binding objective "
                        + "at the first failing level, rate 12 req/s: ttft_p90<=50ms (estimate 53.7 ms, 95 % interval "
                        + "[50.2 ms, 61.2 ms])",
                SearchRun.foundVerdict(false, "rate", "req/s", 8, 12, null, FAILING));
    }
}
