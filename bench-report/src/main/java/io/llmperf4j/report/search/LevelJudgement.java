package io.llmperf4j.report.search;

import java.util.Comparator;
import java.util.List;

/**
 * A level's verdict over every objective: it passes when each objective holds; it is resolved when a resolved
 * objective fails, or when every objective is resolved.
 *
 * @param samples  requests judged
 * @param passed   every objective holds
 * @param resolved the verdict is backed by 95 % intervals (else by the point estimates)
 * @param results  one per objective, in the order given
 */
public record LevelJudgement(int samples, boolean passed, boolean resolved, List<ObjectiveResult> results) {

    public LevelJudgement {
        results = List.copyOf(results);
    }

    /**
     * The objectives whose intervals still straddle their limits when the level is decided on its estimates (what
     * kept it from ending early); empty when the verdict is resolved.
     */
    public List<String> unresolved() {
        if (resolved) return List.of();
        return results.stream().filter(r -> !r.resolved()).map(ObjectiveResult::objective).toList();
    }

    /**
     * The objective that decides the level: a failing error rate (failed requests also miss every latency
     * objective, so the errors are the cause), else the failing one furthest past its limit, else the one nearest it.
     */
    public ObjectiveResult binding() {
        Comparator<ObjectiveResult> byPressure = Comparator.comparingDouble(ObjectiveResult::pressure);
        return results.stream().filter(r -> !r.passed() && r.objective().startsWith("error_rate")).findFirst()
                .or(() -> results.stream().filter(r -> !r.passed()).max(byPressure))
                .orElseGet(() -> results.stream().max(byPressure).orElseThrow());
    }
}
