package io.llmperf4j.cli;

import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.images.ImageOptions;
import io.llmperf4j.datasets.trace.Trace;
import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.ClusterPlan;
import io.llmperf4j.run.LevelManifest;
import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.LoadPlan;
import io.llmperf4j.run.RunRequest;
import io.llmperf4j.run.SessionSpec;
import io.llmperf4j.run.WorkloadSpec;
import io.llmperf4j.run.search.SearchPlan;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * token-benchmark's flags checked and turned into the {@link RunRequest} the runner executes: the
 * {@link CommonOptions}, llmperf's token-distribution flags, our workload, load and cluster flags. Every problem is a
 * {@link UsageException}, raised before anything is started or sent.
 */
final class TokenBenchmarkOptions {
    private TokenBenchmarkOptions() {
    }

    static RunRequest resolve(TokenBenchmarkCommand c, CliContext context) {
        return resolve(c, context, CommonOptions.resultsDir(c.llmperf.common.resultsDir));
    }

    /** @param resultsDir where the files go: --results-dir, or a folder the command chose (null: none) */
    static RunRequest resolve(TokenBenchmarkCommand c, CliContext context, Path resultsDir) {
        LlmperfBenchmarkFlags l = c.llmperf;
        RequestFlags r = c.requests;
        CommonOptions.atLeast("--mean-input-tokens", l.meanInputTokens, 1);
        CommonOptions.atLeast("--stddev-input-tokens", l.stddevInputTokens, 0);
        CommonOptions.atLeast("--mean-output-tokens", l.meanOutputTokens, 1);
        CommonOptions.atLeast("--stddev-output-tokens", l.stddevOutputTokens, 0);
        if (!c.workload.promptMode.equals("llmperf") && !c.workload.promptMode.equals("exact")) {
            throw new UsageException("--prompt-mode must be 'llmperf' or 'exact' (got '" + c.workload.promptMode
                    + "')");
        }
        CommonOptions.requireReadable("--corpus", c.workload.corpus);
        CommonOptions.atLeast("--embedding-batch-size", r.embeddingBatchSize, 1);
        CommonSettings common = CommonOptions.resolve(l.common, l.maxNumCompletedRequests, c.connection,
                c.results.overwrite, resultsDir, context);
        ApiRegistry.Api api = CommonOptions.registered(common.llmApi());
        if (r.noStream && !api.streams()) {
            throw new UsageException("--no-stream applies to --llm-api " + String.join(", ", ApiRegistry.APIS.stream()
                    .filter(ApiRegistry.Api::streams).map(ApiRegistry.Api::name).toList()) + " (" + api.name()
                    + " never streams)");
        }
        if (r.embeddingBatchSize != 1 && api.generates()) {
            throw new UsageException("--embedding-batch-size applies to --llm-api embeddings only");
        }
        if (c.results.saveEvents && l.common.resultsDir.isEmpty()) {
            throw new UsageException("--save-events writes a file: give --results-dir too");
        }
        if (c.results.saveEvents && !api.generates()) {
            throw new UsageException("--save-events applies to generation APIs (" + api.name()
                    + " has no token events)");
        }
        WorkloadFlags w = c.workload;
        refuseBoth(c, "--input-lengths", w.inputLengths, "--mean-input-tokens", "--stddev-input-tokens");
        refuseBoth(c, "--output-lengths", w.outputLengths, "--mean-output-tokens", "--stddev-output-tokens");
        WorkloadSpec workload = new WorkloadSpec(l.meanInputTokens, l.stddevInputTokens, l.meanOutputTokens,
                l.stddevOutputTokens, w.tokenizer, w.allowDownload, w.promptMode, w.corpus, w.seed, w.inputLengths,
                w.outputLengths, w.dataset, w.datasetPromptTokens, w.datasetOutputTokens, w.prompt, w.maxTokens,
                w.scenario, w.scenarioLang, w.prefixTokens, w.saveWorkload, w.workload, sessions(c));
        ImageOptions images = c.images.resolve();
        if (images != null && images.perRequest() != null && !api.name().equals("openai")
                && !api.name().equals("anthropic")) {
            throw new UsageException("--llm-api " + api.name() + " cannot send images: use --llm-api openai (chat "
                    + "completions) or anthropic");
        }
        workload = workload.withImages(images);
        ClusterPlan cluster = c.cluster.resolve();
        if (cluster != null && (c.sessions.turns != null || c.trace.trace != null)) {
            throw new UsageException("--turns and --trace run on one machine; they go without --cluster");
        }
        // embeddings always run through the load models' flow: an active plan even without load flags
        SloObjectives slo = c.search.objectives();
        if (slo != null && !api.generates()) {
            throw new UsageException("--slo does not apply with --llm-api " + api.name() + ": its requests have no "
                    + "TTFT, TPOT or output tokens to judge (their latency is in the results)");
        }
        if (r.noStream && slo != null && !slo.streamOnlyTerms().isEmpty()) {
            throw new UsageException("--slo " + String.join(", ", slo.streamOnlyTerms()) + " cannot be judged with "
                    + "--no-stream: a response that arrives whole has no TPOT and no ITL (stream, or drop the term)");
        }
        if (w.workload != null && c.trace.trace == null) {
            common = common.withMaxNumCompletedRequests(replayCount(w.workload,
                    c.given("--max-num-completed-requests") ? common.maxNumCompletedRequests() : null, context));
        }
        SearchPlan search = c.search.resolve(slo, c.load, common.model());
        if (search != null && c.trace.trace != null) { // a search's levels would skip the replay's flag checks too
            throw new UsageException("--search does not apply to a trace replay: a search varies the load, a replay "
                    + "sends the trace's (give one of them)");
        }
        LoadPlan load = search != null ? LoadPlan.plain(common.model(), common.numConcurrentRequests(),
                common.maxNumCompletedRequests(), java.time.Duration.ofSeconds(common.timeoutSeconds()))
                : LoadOptions.resolve(c.load, common, !api.generates(), c::given);
        checkSloExit(c, slo, search, load);
        if (c.trace.trace != null) {
            // the whole trace is sent: its count, not --max-num-completed-requests, is the run's (the summary's
            // echo, the memory guard below)
            // read once (sessions() below), for the plan and for the prompts
            Trace trace = workload.sessions().loadedTrace();
            common = common.withMaxNumCompletedRequests(trace.requests().size());
            load = TraceReplay.plan(trace, c.trace, c.load, load, common);
            // the run's limit is the trace's span plus --timeout: the summary's timeout_s says so too
            common = common.withTimeoutSeconds(TraceReplay.limitSeconds(trace, common.timeoutSeconds()));
            context.err().println("llmperf4j: " + TraceReplay.describeLimit(trace, common.timeoutSeconds(),
                    l.common.timeoutSeconds));
            TraceReplay.skippedRows(trace, c.trace).ifPresent(n -> context.err().println("llmperf4j: " + n));
        }
        boolean countedLevels = load.harness() == null && !(load.kind().open() && c.load.duration != null
                && !c.given("--max-num-completed-requests")); // otherwise the load, not the count, sets the records
        if (countedLevels) {
            RunGuards.checkMemory(common.maxNumCompletedRequests(),
                    load.profile().levels(Warmup.NONE).size() * load.models().size(), l.meanInputTokens,
                    l.meanOutputTokens, Runtime.getRuntime().maxMemory());
        }
        return new RunRequest(common, workload, !r.noStreamUsage, slo == null ? null : slo.goodput(), !r.noStream,
                r.embeddingBatchSize, !r.noClientWarmup, c.results.saveEvents, load, cluster, c.serverMetrics.resolve(),
                search, search == null ? slo : null); // a search judges its levels itself
    }

    /** --slo-exit needs a verdict to fail: objectives, judged by a run that is not a search and keeps its requests. */
    private static void checkSloExit(TokenBenchmarkCommand c, SloObjectives slo, SearchPlan search, LoadPlan load) {
        if (!c.search.sloExit) return;
        if (slo == null) {
            throw new UsageException("--slo-exit needs --slo objectives, e.g. --slo 'ttft_p99<=500ms,error_rate<=1%'");
        }
        if (slo.objectives().isEmpty()) {
            throw new UsageException("--slo-exit needs --slo objectives (ttft_p99<=500ms, ttft<=500ms@99%, "
                    + "error_rate<=1%): goodput bounds alone (ttft=500ms) give no verdict");
        }
        if (search != null) {
            throw new UsageException("--slo-exit does not apply with --search: a capacity search answers with the "
                    + "capacity, not a pass or fail");
        }
        if (load.harness() != null) {
            throw new UsageException("--slo-exit does not apply with --iterations: iterations keep no per-request "
                    + "results to judge");
        }
    }

    private static SessionSpec sessions(TokenBenchmarkCommand c) {
        SessionFlags s = c.sessions;
        TraceFlags t = c.trace;
        if (s.sharedPrefixGroups != null) CommonOptions.atLeast("--shared-prefix-groups", s.sharedPrefixGroups, 1);
        if (!(t.traceSpeedup > 0) || Double.isInfinite(t.traceSpeedup)) {
            throw new UsageException("--trace-speedup must be > 0 and finite");
        }
        TraceReplay.checkWindow(t.traceStart, t.traceDuration);
        if (t.traceStart != null && t.trace == null) {
            throw new UsageException("--trace-start needs --trace FORMAT:FILE: it is where the replay of a trace "
                    + "begins");
        }
        if (t.traceDuration != null && t.trace == null) {
            throw new UsageException("--trace-duration needs --trace FORMAT:FILE: it cuts the replay of a trace (for "
                    + "a run of a given length give --duration)");
        }
        return new SessionSpec(s.turns, s.thinkTime, s.sharedPrefixGroups, t.trace, t.traceSpeedup,
                TraceReplay.seconds(t.traceStart), TraceReplay.seconds(t.traceDuration),
                t.trace == null ? null : TraceReplay.load(t));
    }

    /**
     * {@code lengths} (--input-lengths or --output-lengths) replaces llmperf's mean and stddev flags of the same
     * lengths: both given is a contradiction, refused rather than one silently dropped.
     */
    private static void refuseBoth(TokenBenchmarkCommand c, String lengthsFlag, String lengths, String... llmperfs) {
        if (lengths == null) return;
        for (String flag : llmperfs) {
            if (c.given(flag)) {
                throw new UsageException(lengthsFlag + " and " + flag + " both set the lengths: give "
                        + lengthsFlag + " alone (e.g. normal:MEAN,STDDEV) or llmperf's mean and stddev flags");
            }
        }
    }

    /**
     * The requests a replayed manifest ({@code --workload FILE}) sends (at each level, for a manifest of levels:
     * {@link LevelManifest}): all of them, each once; an explicit --max-num-completed-requests ({@code given}) below
     * that count sends the first ones, one above it is capped at it. Both are said on the console.
     */
    static int replayCount(Path manifest, Integer given, CliContext context) {
        if (!Files.isRegularFile(manifest)) {
            throw new UsageException("--workload " + manifest + " is not a readable file");
        }
        int held;
        boolean levels;
        try {
            levels = LevelManifest.hasLevels(manifest);
            held = LevelManifest.requestsPerLevel(manifest);
        } catch (DatasetFormatException | UncheckedIOException e) {
            throw new UsageException(e.getMessage());
        }
        if (held < 1) throw new UsageException("--workload " + manifest + " holds no request");
        if (given != null && given < held) {
            context.err().println("llmperf4j: replaying the first " + given + " of the " + held + " requests of "
                    + manifest + (levels ? " at each level" : "") + " (--max-num-completed-requests " + given + ")");
            return given;
        }
        if (given != null && given > held) {
            context.err().println("llmperf4j: " + manifest + " holds " + held + " requests" + (levels ? " per level"
                    : "") + ": --max-num-completed-requests " + given + " is capped at " + held + " (a replay sends "
                    + "each request once)");
        }
        return held;
    }
}
