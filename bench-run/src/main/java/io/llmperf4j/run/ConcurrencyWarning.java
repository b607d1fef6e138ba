package io.llmperf4j.run;

import io.llmperf4j.report.summary.Plural;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.Warmup;

import java.util.List;
import java.util.Optional;

/**
 * A closed-loop level whose concurrency is above its own request count: no more than that many requests are ever
 * in flight, so the level does not measure the concurrency it is named after (a sweep level "64" of 40 requests).
 * Printed by the run once the endpoint answered, before the first level.
 */
public final class ConcurrencyWarning {
    private ConcurrencyWarning() {
    }

    /** The warning line for {@code plan}, if one of its closed-loop levels has fewer requests than concurrency. */
    public static Optional<String> concurrencyAboveRequests(LoadPlan plan) {
        if (plan.harness() != null || plan.kind().open()) return Optional.empty(); // continuous load; a cap
        List<ClosedLoopSettings> starved = plan.profile().levels(Warmup.NONE).stream()
                .filter(ClosedLoopSettings.class::isInstance).map(ClosedLoopSettings.class::cast)
                .filter(c -> c.maxCompleted().isPresent() && c.concurrency() > c.maxCompleted().getAsInt())
                .toList();
        if (starved.isEmpty()) return Optional.empty();
        int requests = starved.get(0).maxCompleted().getAsInt();
        int highest = starved.get(starved.size() - 1).concurrency();
        String levels = String.join(", ", starved.stream().map(c -> LoadSettings.formatLevel(c.level())).toList());
        return Optional.of("llmperf4j: warning: concurrency " + levels + (starved.size() > 1 ? " are" : " is")
                + " above the " + Plural.of(requests, "request") + " of " + (plan.multiLevel() ? "each level"
                : "the run") + ": no more than " + Plural.of(requests, "request") + " " + Plural.is(requests)
                + " ever in flight, so "
                + (starved.size() > 1 ? "those levels measure" : "it measures") + " concurrency " + requests
                + " at most; give --max-num-completed-requests " + highest + " or more (the guides advise at least "
                + "50 per level)");
    }
}
