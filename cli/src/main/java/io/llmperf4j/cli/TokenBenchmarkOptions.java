package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.report.metrics.Slo;
import io.llmperf4j.run.ClusterPlan;
import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.LoadPlan;
import io.llmperf4j.run.RunRequest;
import io.llmperf4j.run.SessionSpec;
import io.llmperf4j.run.WorkloadSpec;

import java.time.Duration;

/**
 * token-benchmark's flags checked and turned into the {@link RunRequest} the runner executes: the
 * {@link CommonOptions}, llmperf's token-distribution flags, our workload, load and cluster flags. Every problem is a
 * {@link UsageException}, raised before anything is started or sent.
 */
final class TokenBenchmarkOptions {
    private TokenBenchmarkOptions() {
    }

    static RunRequest resolve(TokenBenchmarkCommand c, CliContext context) {
        CommonOptions.atLeast("--mean-input-tokens", c.meanInputTokens, 1);
        CommonOptions.atLeast("--stddev-input-tokens", c.stddevInputTokens, 0);
        CommonOptions.atLeast("--mean-output-tokens", c.meanOutputTokens, 1);
        CommonOptions.atLeast("--stddev-output-tokens", c.stddevOutputTokens, 0);
        if (!c.workload.promptMode.equals("llmperf") && !c.workload.promptMode.equals("exact")) {
            throw new UsageException("--prompt-mode must be 'llmperf' or 'exact' (got '" + c.workload.promptMode
                    + "')");
        }
        CommonOptions.requireReadable("--corpus", c.workload.corpus);
        CommonOptions.atLeast("--embedding-batch-size", c.embeddingBatchSize, 1);
        CommonSettings common = CommonOptions.resolve(c.common, c.maxNumCompletedRequests, c.connection, context);
        ApiRegistry.Api api = CommonOptions.registered(common.llmApi());
        if (c.noStream && !api.streams()) {
            throw new UsageException("--no-stream applies to --llm-api " + String.join(", ", ApiRegistry.APIS.stream()
                    .filter(ApiRegistry.Api::streams).map(ApiRegistry.Api::name).toList()) + " (" + api.name()
                    + " never streams)");
        }
        if (c.embeddingBatchSize != 1 && api.generates()) {
            throw new UsageException("--embedding-batch-size applies to --llm-api embeddings only");
        }
        if (c.saveEvents && common.resultsDir() == null) {
            throw new UsageException("--save-events writes a file: give --results-dir too");
        }
        if (c.saveEvents && !api.generates()) {
            throw new UsageException("--save-events applies to generation APIs (" + api.name()
                    + " has no token events)");
        }
        WorkloadFlags w = c.workload;
        WorkloadSpec workload = new WorkloadSpec(c.meanInputTokens, c.stddevInputTokens, c.meanOutputTokens,
                c.stddevOutputTokens, w.tokenizer, w.allowDownload, w.promptMode, w.corpus, w.seed, w.inputLengths,
                w.outputLengths, w.dataset, w.datasetPromptTokens, w.datasetOutputTokens, w.prompt, w.maxTokens,
                w.scenario, w.scenarioLang, w.prefixTokens, w.saveWorkload, w.workload, sessions(c));
        ClusterPlan cluster = c.cluster.resolve();
        if (cluster != null && (c.sessions.turns != null || c.trace.trace != null)) {
            throw new UsageException("--turns and --trace run on one machine; they go without --cluster");
        }
        // embeddings always run through the load models' flow: an active plan even without load flags
        LoadPlan load = LoadOptions.resolve(c.load, common, !api.generates());
        if (c.trace.trace != null) load = TraceReplay.plan(c.trace, load, common);
        return new RunRequest(common, workload, !c.noStreamUsage, parseSlo(c.slo), !c.noStream, c.embeddingBatchSize,
                !c.noClientWarmup, c.saveEvents, load, cluster, c.serverMetrics.resolve());
    }

    private static SessionSpec sessions(TokenBenchmarkCommand c) {
        SessionFlags s = c.sessions;
        TraceFlags t = c.trace;
        if (s.sharedPrefixGroups != null) CommonOptions.atLeast("--shared-prefix-groups", s.sharedPrefixGroups, 1);
        if (!(t.traceSpeedup > 0) || Double.isInfinite(t.traceSpeedup)) {
            throw new UsageException("--trace-speedup must be > 0 and finite");
        }
        if (t.traceDuration != null && !(t.traceDuration > 0)) throw new UsageException("--trace-duration must be > 0");
        return new SessionSpec(s.turns, s.thinkTime, s.sharedPrefixGroups, t.trace, t.traceSpeedup,
                t.traceDuration == null ? null : Duration.ofMillis(Math.round(t.traceDuration * 1000)));
    }

    private static Slo parseSlo(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Slo.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--slo: " + e.getMessage());
        }
    }
}
