package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.report.metrics.Slo;


/**
 * The token benchmark's inputs after validation: the {@link CommonOptions} plus llmperf's token-distribution flags
 * and our workload flags. Every problem is reported as a {@link UsageException} before anything is started or sent.
 */
record TokenBenchmarkOptions(
        CommonOptions common,
        int meanInputTokens,
        int stddevInputTokens,
        int meanOutputTokens,
        int stddevOutputTokens,
        WorkloadFlags workload,
        boolean includeUsage,
        Slo slo,
        boolean stream,
        int embeddingBatchSize,
        boolean clientWarmup,
        boolean saveEvents) {

    static TokenBenchmarkOptions resolve(TokenBenchmarkCommand c, CliContext context) {
        CommonOptions.atLeast("--mean-input-tokens", c.meanInputTokens, 1);
        CommonOptions.atLeast("--stddev-input-tokens", c.stddevInputTokens, 0);
        CommonOptions.atLeast("--mean-output-tokens", c.meanOutputTokens, 1);
        CommonOptions.atLeast("--stddev-output-tokens", c.stddevOutputTokens, 0);
        if (!c.workload.promptMode.equals("llmperf") && !c.workload.promptMode.equals("exact")) {
            throw new UsageException("--prompt-mode must be 'llmperf' or 'exact' (got '" + c.workload.promptMode + "')");
        }
        CommonOptions.requireReadable("--corpus", c.workload.corpus);
        CommonOptions.atLeast("--embedding-batch-size", c.embeddingBatchSize, 1);
        CommonOptions common = CommonOptions.resolve(c.common, c.maxNumCompletedRequests, c.connection, context);
        ApiRegistry.Api api = CommonOptions.registered(common.llmApi());
        if (c.noStream && !api.streams()) {
            throw new UsageException("--no-stream applies to --llm-api " + String.join(", ", ApiRegistry.APIS.stream()
                    .filter(ApiRegistry.Api::streams).map(ApiRegistry.Api::name).toList()) + " (" + api.name()
                    + " never streams)");
        }
        if (c.embeddingBatchSize != 1 && !common.llmApi().equals("embeddings")) {
            throw new UsageException("--embedding-batch-size applies to --llm-api embeddings only");
        }
        if (c.saveEvents && common.resultsDir() == null) {
            throw new UsageException("--save-events writes a file: give --results-dir too");
        }
        if (c.saveEvents && !api.generates()) {
            throw new UsageException("--save-events applies to generation APIs (" + api.name()
                    + " has no token events)");
        }
        return new TokenBenchmarkOptions(common, c.meanInputTokens, c.stddevInputTokens, c.meanOutputTokens,
                c.stddevOutputTokens, c.workload, !c.noStreamUsage, parseSlo(c.slo), !c.noStream,
                c.embeddingBatchSize, !c.noClientWarmup, c.saveEvents);
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
