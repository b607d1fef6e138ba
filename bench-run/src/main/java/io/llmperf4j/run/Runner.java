package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;

import io.llmperf4j.run.search.SearchResult;

import java.io.PrintStream;
import java.util.Objects;

/**
 * Runs a {@link RunRequest}, start to end, and prints its report: the one way a benchmark runs, from the CLI or from
 * Java.
 *
 * <pre>{@code
 * RunRequest request = RunRequest.builder("http://127.0.0.1:8000/v1", "EMPTY", "my-model")
 *         .closedLoop(10, 100)
 *         .resultsDir(Path.of("results/my-model"))
 *         .build();
 * RunStatus status = new Runner(System.out, System.err).run(request);
 * }</pre>
 *
 * <p>A token benchmark (any {@link LoadPlan}, on this machine or a cluster) runs through one flow; an embeddings
 * API runs the same load models with its own report and files; {@link #correctness} is llmperf's correctness test.
 * Bad input is an {@link InvalidRequestException} raised before anything is sent; a run that cannot complete is a
 * {@link RunFailedException}. Ctrl-C and SIGTERM are handled while a run is in progress (staged: see
 * {@link StopControl}).
 */
public final class Runner {
    private final PrintStream out;
    private final PrintStream err;
    private double maxErrorRatePercent = Double.NaN;
    private boolean sloExit;
    private boolean quiet;

    /**
     * @param out the report (llmperf's block last, as llmperf prints it)
     * @param err progress, notes and the names of the files written
     */
    public Runner(PrintStream out, PrintStream err) {
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
    }

    /**
     * A completed token benchmark whose error rate is above {@code percent} (0..100) ends
     * {@link RunStatus#REQUESTS_FAILED}; without it only a run where every request failed does.
     */
    public Runner maxErrorRate(double percent) {
        if (!(percent >= 0 && percent <= 100)) {
            throw new InvalidRequestException("--max-error-rate: expected a percentage from 0 to 100, got " + percent);
        }
        this.maxErrorRatePercent = percent;
        return this;
    }

    /**
     * {@code --slo-exit}: a completed token benchmark where a judged level (the plain run's one, any level of a sweep)
     * missed one of the request's {@link RunRequest#objectives()} ends {@link RunStatus#SLO_MISSED}, after every file
     * is written; a run whose requests failed ends {@link RunStatus#REQUESTS_FAILED} first. A capacity search has no
     * verdict to fail (its answer is the capacity).
     */
    public Runner sloExit() {
        this.sloExit = true;
        return this;
    }

    /**
     * {@code --quiet}: the report ({@code out}) is not shown, so the run's warnings, which it would carry, also go to
     * {@code err}, one line each ({@code llmperf4j: warning: ...}): a level's summary warnings, a sweep's (merged
     * across levels by code) and its verdict's, a capacity search's.
     */
    public Runner quiet() {
        this.quiet = true;
        return this;
    }

    /** Runs a token benchmark (or an embeddings benchmark, with an API that does not generate). */
    public RunStatus run(RunRequest request) {
        checkSupported(request);
        ApiRegistry.Api api = request.common().registered();
        if (sloExit && (request.objectives() == null || request.objectives().objectives().isEmpty()
                || request.search() != null || request.load().harness() != null || !api.generates())) {
            throw new InvalidRequestException("--slo-exit needs --slo objectives (ttft_p99<=500ms, error_rate<=1%, "
                    + "...) judged by a token benchmark without --search or --iterations");
        }
        if (!api.generates()) {
            return new EmbeddingsBenchmark(request, out, err, new FailureGate(maxErrorRatePercent), quiet).run();
        }
        return new TokenRun(request, out, err, new FailureGate(maxErrorRatePercent), sloExit, quiet).run();
    }

    /**
     * Runs a capacity search ({@link RunRequest#search()}): the highest load meeting every objective, with every
     * probed level; prints its table and verdict and writes {@code <base>_search.json}, {@code .csv} and
     * {@code .html} (and each level's files in its folder) to the results folder. A capacity below or above the
     * searched range is an answer too, not a failure.
     *
     * @throws InvalidRequestException when the request has no search plan or cannot run
     */
    public SearchResult search(RunRequest request) {
        if (request.search() == null) throw new InvalidRequestException("the request has no search plan");
        checkSupported(request);
        TokenRun run = new TokenRun(request, out, err, new FailureGate(maxErrorRatePercent), false, quiet);
        RunStatus status = run.run();
        SearchResult result = run.searchResult();
        if (result == null) throw new RunFailedException("the search ended without a result (" + status + ")");
        return result;
    }

    /** llmperf's correctness test: {@code maxNumCompletedRequests} numbers, seeded by {@code seed}. */
    public RunStatus correctness(CommonSettings common, long seed) {
        return new CorrectnessRun(common, seed, out, err).run();
    }

    /** What the request asks that cannot run, as an {@link InvalidRequestException}, before anything starts. */
    public static void checkSupported(RunRequest request) {
        CommonSettings common = request.common();
        ApiRegistry.Api api = common.registered();
        if (request.search() != null && !api.generates()) {
            throw new InvalidRequestException("--search: --llm-api " + common.llmApi() + " does not generate; "
                    + "a capacity search judges generation latencies");
        }
        if (request.search() != null && (request.load().comparison() || request.load().harness() != null)) {
            throw new InvalidRequestException("--search takes one --model and no --iterations");
        }
        if (request.cluster() != null && !api.distributable()) {
            throw new InvalidRequestException("--cluster: --llm-api " + common.llmApi() + " is not distributed; use "
                    + String.join(", ", ApiRegistry.distributableNames()));
        }
    }
}
