package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.ClusterPlan;
import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.LoadPlan;
import io.llmperf4j.run.RunRequest;
import io.llmperf4j.run.WorkloadSpec;
import io.llmperf4j.run.search.SearchPlan;

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
                w.scenario, w.scenarioLang, w.prefixTokens, w.saveWorkload, w.workload);
        ClusterPlan cluster = c.cluster.resolve();
        // embeddings always run through the load models' flow: an active plan even without load flags
        SloObjectives slo = c.search.objectives();
        SearchPlan search = c.search.resolve(slo, c.load, common.model());
        LoadPlan load = search != null ? LoadPlan.plain(common.model(), common.numConcurrentRequests(),
                common.maxNumCompletedRequests(), java.time.Duration.ofSeconds(common.timeoutSeconds()))
                : LoadOptions.resolve(c.load, common, !api.generates());
        return new RunRequest(common, workload, !c.noStreamUsage, slo == null ? null : slo.goodput(), !c.noStream,
                c.embeddingBatchSize, !c.noClientWarmup, c.saveEvents, load, cluster, c.serverMetrics.resolve(),
                search);
    }
}
