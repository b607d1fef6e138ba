package io.llmperf4j.run;

import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.LevelWorkloads;

import java.io.PrintStream;

/**
 * The prompts of each level and fork. Without iterations, {@link WorkloadSource#draw}'s (a level sends its
 * requests once each). With iterations a fork sends for a time, not a count, and so more requests than the workload
 * holds: synthetic prompts not built to share are then drawn fresh for every request, as llmperf sends each prompt
 * once, so that no measured iteration times a prefill the server's prefix cache served. Fork f of level l sends an
 * endless sequence ({@link FreshRequests}) whose first batch is the draw of (l, f) and whose batch k is the same
 * workload drawn from a seed mixed from that draw's and k: the same --seed sends the same sequence again. A workload
 * meant to be sent again is sent in a loop, as the user chose; stderr says so once.
 */
final class IterationPrompts {

    private IterationPrompts() {
    }

    /**
     * @param cluster the forks run on a cluster's workers, which are sent the first batch as a list and loop over it
     */
    static LevelWorkloads of(WorkloadSource workload, WorkloadSpec spec, long seed, LoadPlan plan, boolean cluster,
                             PrintStream err) {
        if (plan.harness() == null) return (level, fork) -> workload.draw(seed, level, fork);
        int count = workload.requests().size();
        if (!workload.drawsFresh()) {
            err.println("llmperf4j: iterations: " + fixedSource(spec) + " is a fixed set of " + plural(count)
                    + ", sent in a loop for as long as each fork runs: once a fork has sent them all, the server's "
                    + "prefix cache can serve every prompt again and TTFT times a cached prefill (synthetic prompts, "
                    + "the default workload, are drawn fresh for every request)");
            return (level, fork) -> workload.draw(seed, level, fork);
        }
        if (cluster) {
            err.println("llmperf4j: iterations on a cluster: each fork's workers loop over its " + plural(count)
                    + " (fresh prompts for every request are drawn only by a run from this machine): once they have "
                    + "sent them all, the server's prefix cache can serve them again; raise "
                    + "--max-num-completed-requests to draw more");
            return (level, fork) -> workload.draw(seed, level, fork);
        }
        return (level, fork) -> new FreshRequests(workload.draw(seed, level, fork),
                batch -> workload.redraw().apply(batchSeed(WorkloadSource.drawSeed(seed, level, fork), batch)),
                err::println);
    }

    /** The seed of batch {@code batch} (&gt;= 1) of the sequence whose first batch was drawn from {@code drawSeed}. */
    static long batchSeed(long drawSeed, int batch) {
        return WorkloadSource.mix(drawSeed ^ (batch * 0xD6E8FEB86659FD93L));
    }

    private static String fixedSource(WorkloadSpec spec) {
        if (spec.workload() != null) return "the --workload manifest";
        if (spec.dataset() != null) return "the --dataset";
        if (spec.prompt() != null) return "--prompt";
        if (spec.scenario() != null) return "the --scenario";
        if (spec.sessions().trace() != null) return "the --trace";
        return "the workload (built to share prefixes: --turns, --prefix-tokens or --shared-prefix-groups)";
    }

    private static String plural(int n) {
        return n + (n == 1 ? " request" : " requests");
    }
}
