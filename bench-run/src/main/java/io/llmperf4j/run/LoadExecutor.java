package io.llmperf4j.run;

import io.llmperf4j.engine.BenchmarkResult;

import java.net.URI;

/**
 * Where a token benchmark's levels run: this machine ({@link LocalExecutor}, the engine's {@code Benchmark}) or the
 * workers of a cluster ({@link ClusterExecutor}). Everything else of a run (workload, results folder, levels'
 * files, reports, Ctrl-C) is the same flow, {@link TokenRun}, whichever runs the levels.
 */
interface LoadExecutor extends AutoCloseable {

    /** The URL requests go to, as shown in the files. */
    URI uri();

    /** The endpoint's API key (sent to the server's metrics only on the endpoint's origin), or null. */
    String apiKey();

    /** What the "load:" line adds about where the load comes from ("" here, ", over 3 workers" on a cluster). */
    String where(LoadPlan plan);

    /**
     * Runs one model's levels, each reported to {@code run} as it starts and ends; {@code stops} can end a level or
     * the whole run meanwhile.
     */
    BenchmarkResult run(String model, LoadPlan plan, ModelRun run, StopControl stops);

    @Override
    void close();
}
