package io.llmperf4j.run;

import io.llmperf4j.datasets.trace.Trace;

import java.time.Duration;

/**
 * The workload's sessions, shared prefixes and trace replay, as given (checked and built by {@link WorkloadSource}).
 * Null means "not given".
 *
 * @param turns              turns per session: N or a distribution ({@code fixed:3}, {@code uniform:2,6},
 *                           {@code normal:4,1,1,10}); null for single requests
 * @param thinkTime          ms between a reply and the session's next turn, a distribution in the same forms
 * @param sharedPrefixGroups G system prompts of exactly {@code --prefix-tokens} tokens, one drawn per session or
 *                           request
 * @param trace              FORMAT:FILE, mooncake or azure
 * @param traceSpeedup       the trace's timestamps divided by this
 * @param traceStart         replay from this far into the (sped-up) trace, its first request kept sent at 0; null
 *                           from its start
 * @param traceDuration      replay this stretch only, from the start (after the speedup)
 * @param loadedTrace        the trace already read, sped up and cut as the four above say (the command line reads
 *                           it once, for the load plan, and passes it along); null: {@link WorkloadSource} reads it
 */
public record SessionSpec(String turns, String thinkTime, Integer sharedPrefixGroups, String trace,
                          double traceSpeedup, Duration traceStart, Duration traceDuration, Trace loadedTrace) {

    public static final SessionSpec NONE = new SessionSpec(null, null, null, null, 1.0, null, null);

    /** The trace not read yet. */
    public SessionSpec(String turns, String thinkTime, Integer sharedPrefixGroups, String trace, double traceSpeedup,
                       Duration traceStart, Duration traceDuration) {
        this(turns, thinkTime, sharedPrefixGroups, trace, traceSpeedup, traceStart, traceDuration, null);
    }

    /** Whether anything here changes the workload. */
    public boolean active() {
        return turns != null || sharedPrefixGroups != null || trace != null;
    }
}
