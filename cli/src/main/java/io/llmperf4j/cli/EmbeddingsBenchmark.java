package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ChatCompletionsClient;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.llmperf.LlmperfFileNames;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code token-benchmark --llm-api embeddings}: the workload's prompts as inputs, {@code --embedding-batch-size}
 * of them per request, in the same closed loop (--num-concurrent-requests, --max-num-completed-requests requests,
 * --timeout). Prints and writes {@link EmbeddingsSummary} instead of llmperf's files, which describe generation.
 */
final class EmbeddingsBenchmark {
    private final TokenBenchmarkOptions options;
    private final CommonOptions common;
    private final PrintStream out;
    private final PrintStream err;

    EmbeddingsBenchmark(TokenBenchmarkOptions options, CliContext context) {
        this.options = options;
        this.common = options.common();
        this.out = context.out();
        this.err = context.err();
    }

    int run() {
        int batch = options.embeddingBatchSize();
        int requests = common.maxNumCompletedRequests();
        WorkloadSource workload = WorkloadSource.resolve(options.workload(), options.meanInputTokens(),
                options.stddevInputTokens(), options.meanOutputTokens(), options.stddevOutputTokens(),
                Math.multiplyExact(requests, batch), common.additionalSamplingParams(), err);
        List<RequestSpec> inputs = workload.requests();
        List<List<String>> batches = new ArrayList<>(requests);
        List<RequestSpec> specs = new ArrayList<>(requests);
        for (int i = 0; i < requests; i++) {
            List<RequestSpec> group = inputs.subList(i * batch, (i + 1) * batch);
            batches.add(group.stream().map(RequestSpec::prompt).toList());
            int tokens = group.stream().mapToInt(RequestSpec::numberInputTokens).sum();
            specs.add(new RequestSpec(i, group.get(0).prompt(), tokens, RequestSpec.NO_MAX_TOKENS));
        }
        ResultsFolder.prepare(common.resultsDir());

        ClosedLoopResult result;
        String endpointShown;
        try (EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(), workload.promptTokenizer(), err)) {
            LlmApi api = common.api(false, spec -> batches.get(spec.index()));
            endpointShown = endpoint.uri(api).toString();
            Preflight.checkReachable(endpoint.uri(api));
            try (ChatCompletionsClient client = common.newClient(endpoint, api, common.additionalSamplingParams(),
                    false)) {
                ClosedLoopRunner runner = new ClosedLoopRunner(client, text -> 0);
                try (InterruptHandler ignored = InterruptHandler.install(runner::stop, err)) {
                    result = runner.run(specs, new ClosedLoopSettings(common.numConcurrentRequests(),
                                    Duration.ofSeconds(common.timeoutSeconds()))
                                    .withMaxCompleted(requests)
                                    .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER),
                            new ProgressPrinter(err, specs.size()));
                }
            }
        }
        EmbeddingsSummary summary = EmbeddingsSummary.of(result.records(), batch, result.durationNanos());
        if (result.timedOut()) {
            out.println("Test timed out before all requests could be completed.");
        }
        out.print(summary.render());
        out.flush();
        if (common.resultsDir() != null) {
            String base = LlmperfFileNames.sanitize(common.model() + "_"
                    + options.meanInputTokens() + "_" + options.meanOutputTokens());
            try {
                EmbeddingsSummary.Written files = summary.write(common.resultsDir(), base, common.model(),
                        endpointShown, common.numConcurrentRequests(), options.meanInputTokens(),
                        options.stddevInputTokens(), common.metadata(), result.timedOut());
                err.println("Results written to " + files.summaryJson().getParent().toAbsolutePath() + ": "
                        + files.summaryJson().getFileName() + ", " + files.csv().getFileName());
            } catch (IOException e) {
                throw new RunFailedException("could not write results to " + common.resultsDir() + ": " + e, e);
            }
        }
        return result.stopped() ? ExitCodes.INTERRUPTED : ExitCodes.OK;
    }
}
