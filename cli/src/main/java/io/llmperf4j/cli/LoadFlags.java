package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/**
 * token-benchmark's load flags (none of them llmperf's): open loop, sweeps, warmup, JMH-style iterations. A section
 * of its help; {@link LoadOptions#resolve} checks them and turns them into the engine's load profile. Without any of them
 * (and with a single --model) the command runs llmperf's closed loop exactly as before.
 */
final class LoadFlags {
    @Option(names = "--request-rate", paramLabel = "R",
            description = "Open loop: send R requests per second on a precomputed, seeded schedule, "
                    + "whether or not earlier ones have finished (instead of llmperf's closed loop). Latencies are "
                    + "reported from the intended and from the actual send.")
    Double requestRate;

    @Option(names = "--arrival", paramLabel = "constant|poisson|gamma",
            completionCandidates = CompletionValues.Arrivals.class,
            description = "How open-loop arrivals are spaced: constant intervals, a Poisson process, "
                    + "or gamma intervals shaped by --burstiness. Default: poisson.")
    String arrival;

    @Option(names = "--burstiness", paramLabel = "K",
            description = "Gamma shape for --arrival gamma (vLLM's --burstiness): K < 1 burstier than "
                    + "Poisson, K > 1 smoother, 1 is Poisson.")
    Double burstiness;

    @Option(names = "--arrival-seed", paramLabel = "SEED",
            description = "Seed of the open-loop schedule. Default: --seed.")
    Long arrivalSeed;

    @Option(names = "--max-concurrency", paramLabel = "N",
            description = "Open loop: at most N requests in flight; arrivals beyond it queue in order "
                    + "(never dropped) and their wait counts in the latency from the intended send.")
    Integer maxConcurrency;

    @Option(names = "--concurrency-sweep", paramLabel = "1,5,10,20,50",
            description = "Run the closed loop at each concurrency in turn, "
                    + "--max-num-completed-requests requests per level, then judge the sweep (saturation point, "
                    + "TTFT red line, failures).")
    String concurrencySweep;

    @Option(names = "--rate-sweep", paramLabel = "1,2,4,8",
            description = "Run the open loop at each request rate in turn (req/s), "
                    + "--max-num-completed-requests arrivals or --duration seconds per level.")
    String rateSweep;

    @Option(names = "--sleep-between", paramLabel = "SECONDS",
            description = "Pause between sweep levels (and between models), so the server drains its "
                    + "queues. Default: 5 (1 with --search).")
    Double sleepBetween;

    @Option(names = "--saturation-gain", paramLabel = "PERCENT",
            description = "A sweep level whose output tok/s grows by less than this over the previous "
                    + "judged level (or falls) is the saturation point; in a rate sweep, a level whose successes end "
                    + "below 100 minus this percent of its scheduled rate. Default: 5.")
    Double saturationGain;

    @Option(names = "--ttft-jump", paramLabel = "FACTOR",
            description = "A sweep level whose TTFT p90 is at least FACTOR times the previous level's "
                    + "is the TTFT red line (queueing; a rate sweep without --max-concurrency compares TTFT p90 from "
                    + "the actual send, which the client's own send lag does not move). Default: 3.")
    Double ttftJump;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "Open loop: schedule arrivals for this long (per level in a rate sweep), "
                    + "then wait for those in flight. With it, --max-num-completed-requests caps the arrivals only "
                    + "when given; arrivals cycle through the prepared prompts.")
    Double duration;

    @Option(names = "--warmup-requests", paramLabel = "N",
            description = "The first N requests (of each level) are warmup: sent, then left out of "
                    + "every result and file.")
    Integer warmupRequests;

    @Option(names = "--warmup-duration", paramLabel = "SECONDS",
            description = "Requests sent (closed loop) or scheduled (open loop) in the first SECONDS "
                    + "of each level are warmup, left out of every result and file.")
    Double warmupDuration;

    @Option(names = "--iterations", paramLabel = "I",
            description = "JMH-style: I measurement iterations of --iteration-time each under "
                    + "continuous load, per fork; prints JMH's text and writes JMH-compatible JSON.")
    Integer iterations;

    @Option(names = "--warmup-iterations", paramLabel = "W",
            description = "JMH-style warmup iterations before the measured ones, per fork. "
                    + "Default: 2.")
    Integer warmupIterations;

    @Option(names = "--iteration-time", paramLabel = "SECONDS",
            description = "Length of each iteration (warmup and measurement). Default: 10.")
    Double iterationTime;

    @Option(names = "--forks", paramLabel = "F",
            description = "JMH-style forks: the iterations are repeated F times, each with a fresh "
                    + "connection pool. Default: 1.")
    Integer forks;
}
