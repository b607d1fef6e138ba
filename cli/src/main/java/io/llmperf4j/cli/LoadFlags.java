package io.llmperf4j.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * token-benchmark's load flags (none of them llmperf's): open loop, sweeps, warmup, JMH-style iterations. A picocli
 * mixin; {@link LoadPlan#resolve} checks them and turns them into the engine's load profile. Without any of them
 * (and with a single --model) the command runs llmperf's closed loop exactly as before.
 */
final class LoadFlags {
    /** The command this mixin is part of: tells which of its options were given explicitly. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--request-rate", paramLabel = "R",
            description = "llmperf4j: open loop: send R requests per second on a precomputed, seeded schedule, "
                    + "whether or not earlier ones have finished (instead of llmperf's closed loop). Latencies are "
                    + "reported from the intended and from the actual send.")
    Double requestRate;

    @Option(names = "--arrival", paramLabel = "constant|poisson|gamma",
            description = "llmperf4j: how open-loop arrivals are spaced: constant intervals, a Poisson process, "
                    + "or gamma intervals shaped by --burstiness. Default: poisson.")
    String arrival;

    @Option(names = "--burstiness", paramLabel = "K",
            description = "llmperf4j: gamma shape for --arrival gamma (vLLM's --burstiness): K < 1 burstier than "
                    + "Poisson, K > 1 smoother, 1 is Poisson.")
    Double burstiness;

    @Option(names = "--arrival-seed", paramLabel = "SEED",
            description = "llmperf4j: seed of the open-loop schedule. Default: --seed.")
    Long arrivalSeed;

    @Option(names = "--max-concurrency", paramLabel = "N",
            description = "llmperf4j: open loop: at most N requests in flight; arrivals beyond it queue in order "
                    + "(never dropped) and their wait counts in the latency from the intended send.")
    Integer maxConcurrency;

    @Option(names = "--concurrency-sweep", paramLabel = "1,5,10,20,50",
            description = "llmperf4j: run the closed loop at each concurrency in turn, "
                    + "--max-num-completed-requests requests per level, then judge the sweep (saturation point, "
                    + "TTFT red line, failures).")
    String concurrencySweep;

    @Option(names = "--rate-sweep", paramLabel = "1,2,4,8",
            description = "llmperf4j: run the open loop at each request rate in turn (req/s), "
                    + "--max-num-completed-requests arrivals or --duration seconds per level.")
    String rateSweep;

    @Option(names = "--sleep-between", paramLabel = "SECONDS",
            description = "llmperf4j: pause between sweep levels (and between models), so the server drains its "
                    + "queues. Default: 5.")
    Double sleepBetween;

    @Option(names = "--saturation-gain", paramLabel = "PERCENT",
            description = "llmperf4j: a sweep level whose output tok/s grows by less than this over the previous "
                    + "level (or falls) is the saturation point. Default: 5.")
    Double saturationGain;

    @Option(names = "--ttft-jump", paramLabel = "FACTOR",
            description = "llmperf4j: a sweep level whose TTFT p90 is at least FACTOR times the previous level's "
                    + "is the TTFT red line (queueing). Default: 3.")
    Double ttftJump;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "llmperf4j: open loop: schedule arrivals for this long (per level in a rate sweep), "
                    + "then wait for those in flight. With it, --max-num-completed-requests caps the arrivals only "
                    + "when given; arrivals cycle through the prepared prompts.")
    Double duration;

    @Option(names = "--warmup-requests", paramLabel = "N",
            description = "llmperf4j: the first N requests (of each level) are warmup: sent, then left out of "
                    + "every result and file.")
    Integer warmupRequests;

    @Option(names = "--warmup-duration", paramLabel = "SECONDS",
            description = "llmperf4j: requests sent (closed loop) or scheduled (open loop) in the first SECONDS "
                    + "of each level are warmup, left out of every result and file.")
    Double warmupDuration;

    @Option(names = "--iterations", paramLabel = "I",
            description = "llmperf4j: JMH-style: I measurement iterations of --iteration-time each under "
                    + "continuous load, per fork; prints JMH's text and writes JMH-compatible JSON.")
    Integer iterations;

    @Option(names = "--warmup-iterations", paramLabel = "W",
            description = "llmperf4j: JMH-style warmup iterations before the measured ones, per fork. "
                    + "Default: 2.")
    Integer warmupIterations;

    @Option(names = "--iteration-time", paramLabel = "SECONDS",
            description = "llmperf4j: length of each iteration (warmup and measurement). Default: 10.")
    Double iterationTime;

    @Option(names = "--forks", paramLabel = "F",
            description = "llmperf4j: JMH-style forks: the iterations are repeated F times, each with a fresh "
                    + "connection pool. Default: 1.")
    Integer forks;

    /** Whether {@code option} (e.g. "--timeout") of the command was given on the command line. */
    boolean given(String option) {
        return mixee != null && mixee.commandLine() != null && mixee.commandLine().getParseResult() != null
                && mixee.commandLine().getParseResult().hasMatchedOption(option);
    }
}
