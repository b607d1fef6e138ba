package io.llmperf4j.run;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.search.SearchPlan;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which client warm-up a token benchmark gets (quick for llmperf's short plain runs, full for the rest; an open loop's
 * wave for open loops, rate sweeps and rate searches), and when it tells the user it ran out of time.
 */
class WarmupBudgetTest {

    private static List<RequestSpec> requests(int count, int maxTokens) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < count; i++) specs.add(new RequestSpec(i, "p", 10, maxTokens));
        return specs;
    }

    private static LoadPlan plain(String... models) {
        LoadPlan one = LoadPlan.plain(models[0], 4, 10, Duration.ofSeconds(60));
        return new LoadPlan(false, List.of(models), one.kind(), one.profile(), one.warmup(), one.harness(), one.rules(),
                one.pause(), one.maxConnections(), one.arrivalSeed(), one.seedGiven());
    }

    @Test
    void llmperfsDefaultRunWarmsUpQuickly() {
        assertEquals(ClientWarmup.Budget.QUICK, TokenRun.warmupBudget(plain("m"), requests(10, 150)));
        // no max_tokens counts as llmperf's default answer of 150
        assertEquals(ClientWarmup.Budget.QUICK, TokenRun.warmupBudget(plain("m"),
                requests(20, RequestSpec.NO_MAX_TOKENS)));
    }

    @Test
    void heavyPlainRunsAndEveryActiveLoadWarmUpFully() {
        long limit = TokenRun.QUICK_RUN_OUTPUT_TOKENS;
        assertEquals(ClientWarmup.Budget.FULL, TokenRun.warmupBudget(plain("m"),
                requests((int) (limit / 256) + 1, 256)));
        // the same requests to two models count twice
        assertEquals(ClientWarmup.Budget.FULL, TokenRun.warmupBudget(plain("a", "b"),
                requests((int) (limit / 2 / 100) + 1, 100)));
        LoadPlan one = plain("m");
        LoadPlan sweep = new LoadPlan(true, one.models(), LoadPlan.Kind.CONCURRENCY_SWEEP, one.profile(), one.warmup(),
                one.harness(), one.rules(), one.pause(), one.maxConnections(), one.arrivalSeed(), one.seedGiven());
        assertEquals(ClientWarmup.Budget.FULL, TokenRun.warmupBudget(sweep, requests(2, 10)));
    }

    @Test
    void openLoopsRateSweepsAndRateSearchesWarmThePacerAndNothingElseDoes() {
        LoadPlan one = plain("m");
        for (LoadPlan.Kind kind : LoadPlan.Kind.values()) {
            LoadPlan plan = new LoadPlan(true, one.models(), kind, one.profile(), one.warmup(), one.harness(),
                    one.rules(), one.pause(), one.maxConnections(), one.arrivalSeed(), one.seedGiven());
            boolean open = kind == LoadPlan.Kind.OPEN_LOOP || kind == LoadPlan.Kind.RATE_SWEEP;
            assertEquals(open, TokenRun.warmsThePacer(plan, null), kind.name());
        }
        assertEquals(false, TokenRun.warmsThePacer(one, null), "a plain run");
        SloObjectives slo = SloObjectives.parse("ttft_p99<=300ms");
        assertEquals(true, TokenRun.warmsThePacer(one, SearchPlan.of(SearchPlan.Mode.RATE, slo.objectives())));
        assertEquals(false, TokenRun.warmsThePacer(one, SearchPlan.of(SearchPlan.Mode.CONCURRENCY, slo.objectives())));
    }

    @Test
    void aFullWarmupStoppedByItsBoundSaysSoAndNothingElseDoes() {
        ClientWarmup.Outcome bounded = new ClientWarmup.Outcome(ClientWarmup.Budget.FULL, 4321, false);
        String notice = bounded.notice().orElseThrow();
        assertTrue(notice.startsWith("llmperf4j: client warm-up: stopped at its 12 s bound after 4,321 requests"),
                notice);
        assertTrue(notice.contains("first requests may carry compilation"), notice);
        assertEquals(Optional.empty(),
                new ClientWarmup.Outcome(ClientWarmup.Budget.FULL, 10_776, true).notice());
        // the quick warm-up ends at its bound by design
        assertEquals(Optional.empty(),
                new ClientWarmup.Outcome(ClientWarmup.Budget.QUICK, 449, false).notice());
    }
}
