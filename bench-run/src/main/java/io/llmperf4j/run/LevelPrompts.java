package io.llmperf4j.run;

import io.llmperf4j.report.summary.Plural;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.LevelWorkloads;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.engine.load.WarmupPrompts;

import java.io.PrintStream;

/**
 * The prompts of each level and fork. A level that sends at most as many requests as the workload holds sends
 * {@link WorkloadSource#draw}'s, each once. A level that sends for a time, not a count, sends more: a fork of
 * iterations, an open loop's {@code --duration}, a capacity search's level limited by time (or by more requests than
 * the workload holds). Synthetic prompts not built to share are then drawn fresh for every request, as llmperf sends
 * each prompt once, so that no request times a prefill the server's prefix cache served because the run sent the
 * same prompt before. Fork f of level l sends an endless sequence ({@link FreshRequests}) whose first batch is the
 * draw of (l, f) (for the first, the prompts a plain run with the same --seed sends) and whose batch k is the same
 * workload drawn from a seed mixed from that draw's and k: the same --seed sends the same sequence again. A workload
 * meant to be sent again is sent in a loop, as the user chose; stderr says so once. Synthetic sessions (--turns, not
 * built to share prefixes) are drawn likewise, session by session ({@link FreshSessions}: each level and fork its own
 * first, then fresh ones); other sessions are started again as new sessions ({@code s0~1}), and stderr says so in
 * sessions. A level's warmup
 * (--warmup-requests, --warmup-duration) sends synthetic prompts of its own, drawn from a seed of their own, so the
 * measured requests are the same run's without warmup ({@link WarmupPrompts}); a fixed workload's warmup cycles
 * through the workload.
 */
final class LevelPrompts {

    /** Mixed into a draw's seed for its warmup's: another seed, not another level's or batch's. */
    private static final long WARMUP_SALT = 0x5EEDC0DE_A11CE5EDL;

    private LevelPrompts() {
    }

    /**
     * The workloads of a run of {@code plan} (its first level the run's first draw); says on {@code err} when a
     * level loops over a fixed workload.
     *
     * @param cluster the levels run on a cluster's workers: iterations' forks and open-loop levels are dealt fresh
     *                prompts batch by batch; a closed-loop level stops at the prompts handed out
     */
    static LevelWorkloads of(WorkloadSource workload, WorkloadSpec spec, long seed, LoadPlan plan, boolean cluster,
                             PrintStream err) {
        return of(workload, spec, seed, plan, 0, cluster, err, plan.harness() != null ? "iterations" : "--duration",
                true);
    }

    /**
     * The workloads of {@code plan}, whose level l is the run's draw {@code firstLevel + l} (a capacity search's
     * probe).
     *
     * @param runs what makes a level send for a time, for stderr: "iterations", "--duration", "capacity search"
     * @param tell say on {@code err} when the levels loop over the workload (once per run: the caller knows)
     */
    static LevelWorkloads of(WorkloadSource workload, WorkloadSpec spec, long seed, LoadPlan plan, int firstLevel,
                             boolean cluster, PrintStream err, String runs, boolean tell) {
        LevelWorkloads measured = measured(workload, spec, seed, plan, firstLevel, cluster, err, runs, tell);
        if (!warmupDrawnApart(workload, plan, cluster)) return measured;
        return (level, fork) -> new WarmupPrompts(measured.forLevel(level, fork),
                warmupSequence(workload, WorkloadSource.drawSeed(seed, firstLevel + level, fork)));
    }

    /**
     * Whether the warmup of a level of {@code plan} sends prompts of its own ({@link WarmupPrompts}): synthetic
     * prompts not built to share, a --warmup-requests or --warmup-duration, from this machine. Otherwise a warmup
     * cycles through the measured requests (a fixed workload has none to draw; a cluster's workers split the
     * level's requests, warmup included), and the measured ones can resend its prompts.
     */
    static boolean warmupDrawnApart(WorkloadSource workload, LoadPlan plan, boolean cluster) {
        return workload.drawsFresh() && !(plan.warmup() instanceof Warmup.None) && plan.harness() == null
                && !cluster;
    }

    /**
     * The warmup's sequence of the draw seeded {@code drawSeed}: the same workload drawn from a seed of its own,
     * then batch after batch as {@link FreshRequests} does, so the same --seed warms with the same prompts again.
     */
    private static FreshRequests warmupSequence(WorkloadSource workload, long drawSeed) {
        long warmupSeed = WorkloadSource.mix(drawSeed ^ WARMUP_SALT);
        // a warmup's waits and repeats do not touch the measurement: not told
        return new FreshRequests(workload.redraw().apply(warmupSeed),
                batch -> workload.redraw().apply(batchSeed(warmupSeed, batch)), notice -> { });
    }

    /** The measured requests of each level and fork (as {@link #of}, without the warmup's own). */
    private static LevelWorkloads measured(WorkloadSource workload, WorkloadSpec spec, long seed, LoadPlan plan,
                                           int firstLevel, boolean cluster, PrintStream err, String runs,
                                           boolean tell) {
        LevelWorkloads drawn = (level, fork) -> workload.draw(seed, firstLevel + level, fork);
        int count = workload.requests().size();
        if (!sendsMoreThan(plan, count)) return drawn;
        // a cluster's closed-loop level stops at the prompts handed out (docs/capacity-search.md): nothing loops
        if (cluster && plan.harness() == null && !plan.kind().open()) return drawn;
        String unit = plan.harness() != null ? "fork" : "level";
        if (workload.drawsFreshSessions()) {
            // sessions of their own for each level and fork, then fresh ones for as long as it runs
            int ahead = sessionsAhead(plan);
            return (level, fork) -> {
                long drawSeed = WorkloadSource.drawSeed(seed, firstLevel + level, fork);
                PacedWorkload own = firstLevel + level == 0 && fork == 0 ? (PacedWorkload) workload.requests()
                        : workload.sessionRedraw().apply(drawSeed);
                return own.withMoreSessions(new FreshSessions(own,
                        batch -> workload.sessionRedraw().apply(batchSeed(drawSeed, batch)), ahead, err::println));
            };
        }
        if (workload.requests() instanceof PacedWorkload paced && paced.multiTurn()) {
            if (tell) {
                int sessions = paced.sessionList().size();
                err.println("llmperf4j: " + runs + ": " + fixedSource(spec) + " holds "
                        + Plural.of(sessions, "session") + " (" + Plural.of(count, "request") + "), started again "
                        + "as new sessions (" + paced.sessionList().get(0).get(0).inputs().sessionId() + "~1, ...) "
                        + "for as long as each " + unit + " runs: once a " + unit + " has started them all, the "
                        + "server's prefix cache can serve every prompt again and TTFT times a cached prefill "
                        + "(synthetic sessions, --turns without --prefix-tokens or --shared-prefix-groups, are drawn "
                        + "fresh for every session)");
            }
            return drawn;
        }
        if (!workload.drawsFresh()) {
            if (tell) {
                err.println("llmperf4j: " + runs + ": " + fixedSource(spec) + " is a fixed set of "
                        + Plural.of(count, "request")
                        + ", sent in a loop for as long as each " + unit + " runs: once a " + unit + " has sent them "
                        + "all, the server's prefix cache can serve every prompt again and TTFT times a cached "
                        + "prefill (synthetic prompts, the default workload, are drawn fresh for every request)");
            }
            return drawn;
        }
        // on a cluster the sequence reaches the coordinator whole, which deals each batch out between the workers
        // (bench-distributed's PromptBatches), a harness fork's and an open-loop level's alike
        return (level, fork) -> new FreshRequests(drawn.forLevel(level, fork),
                batch -> workload.redraw().apply(batchSeed(WorkloadSource.drawSeed(seed, firstLevel + level, fork),
                        batch)), err::println);
    }

    /**
     * Whether a level of {@code plan} can send more than {@code count} requests: iterations, a level limited by time
     * only, or by more requests than that. A trace's arrivals are its own, sent once. A warmup's requests are left
     * out: synthetic ones are its own ({@link #warmupDrawnApart}); a fixed workload's cycle through it anyway.
     */
    static boolean sendsMoreThan(LoadPlan plan, int count) {
        if (plan.harness() != null) return true;
        for (LoadSettings level : plan.profile().levels(plan.warmup())) {
            if (level instanceof ClosedLoopSettings c && c.maxCompleted().orElse(count) > count) return true;
            if (level instanceof OpenLoopSettings o && !(o.arrival() instanceof Arrival.Trace)
                    && o.maxRequests().orElse(Integer.MAX_VALUE) > count) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sessions kept drawn ahead of a level of {@code plan} ({@link FreshSessions}): twice the sessions a closed loop
     * keeps in flight, or an open loop's 2 s of arrivals (its cap, when it has one), and a margin.
     */
    static int sessionsAhead(LoadPlan plan) {
        int most = 1;
        for (LoadSettings level : plan.profile().levels(Warmup.NONE)) {
            if (level instanceof ClosedLoopSettings c) most = Math.max(most, c.concurrency());
            if (level instanceof OpenLoopSettings o) {
                most = Math.max(most, o.maxConcurrency().isPresent() ? o.maxConcurrency().getAsInt()
                        : (int) Math.min(1_000, Math.ceil(2 * o.requestsPerSecond())));
            }
        }
        return 2 * most + 16;
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
        if (spec.sessions().turns() != null && (spec.sessions().sharedPrefixGroups() != null
                || spec.prefixTokens() != null)) {
            return "the workload of sessions built to share prefixes (--turns with --prefix-tokens or "
                    + "--shared-prefix-groups)";
        }
        if (spec.sessions().turns() != null) return "the workload of sessions (--turns)";
        return "the workload (built to share prefixes: --prefix-tokens or --shared-prefix-groups)";
    }
}
