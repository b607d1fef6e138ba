package io.llmperf4j.cli;

import io.llmperf4j.datasets.Corpus;
import io.llmperf4j.engine.client.ChatCompletionsClient;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.llmperf.LlmperfConsoleReport;
import io.llmperf4j.report.llmperf.LlmperfResultFiles;
import io.llmperf4j.report.llmperf.LlmperfResultWriter;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryConsoleReport;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.PromptMode;
import io.llmperf4j.tokenize.prompt.PromptParams;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The token benchmark, start to end: workload, endpoint, closed loop, llmperf's printed block and files.
 * Everything that can be checked is checked before the first request is sent.
 */
final class TokenBenchmark {
    private final TokenBenchmarkOptions options;
    private final CommonOptions common;
    private final PrintStream out;
    private final PrintStream err;
    private LoadPlan load = LoadPlan.NONE;

    TokenBenchmark(TokenBenchmarkOptions options, CliContext context) {
        this.options = options;
        this.common = options.common();
        this.out = context.out();
        this.err = context.err();
    }

    int run() {
        if (options.meanInputTokens() < 40) {
            // llmperf prints this (its number is stale: the prefix is now about 27 tokens)
            err.println("the minimum number of input tokens that will be sent is 41 because of the prompting "
                    + "logic right now");
        }
        Tokenizer tokenizer = options.tokenizer() == null
                ? Tokenizers.builtInLlama2() : Tokenizers.fromPath(options.tokenizer());
        Corpus corpus = options.corpus() == null ? Corpus.defaultCorpus() : Corpus.fromFile(options.corpus());
        List<RequestSpec> specs = new PromptSynthesizer(tokenizer, corpus.lines()).synthesize(promptParams());
        ResultsFolder.prepare(common.resultsDir());

        if (load.active()) { // load flags or several models: open loop, sweeps, warmup, iterations, comparison
            return new LoadRun(options, load, out, err).run(
                    new LoadRun.Workload(specs, tokenizer, tokenizer, tokenizer.count(""), run -> run,
                            endpoint -> settings(endpoint, tokenizer, corpus)),
                    new LoadRun.Connector(EndpointUnderTest::chatCompletionsUri, (endpoint, model, connections) ->
                            new ChatCompletionsClient(common.clientConfig(endpoint, common.additionalSamplingParams(),
                                    options.includeUsage(), model, connections))));
        }
        ClosedLoopResult result;
        String endpointShown;
        try (EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(), tokenizer, err)) {
            endpointShown = endpoint.chatCompletionsUri().toString();
            Preflight.checkReachable(endpoint.chatCompletionsUri());
            try (ChatCompletionsClient client = new ChatCompletionsClient(
                    common.clientConfig(endpoint, common.additionalSamplingParams(), options.includeUsage()));
                 RequestJournal journal = openJournal()) {
                ClosedLoopRunner runner = new ClosedLoopRunner(client, tokenizer);
                ProgressPrinter progress = new ProgressPrinter(err, specs.size());
                RecordListener listener = journal == null ? progress : record -> {
                    journal.append(record);
                    progress.onRecord(record);
                };
                try (InterruptHandler ignored = InterruptHandler.install(runner::stop, err)) {
                    result = runner.run(specs, loopSettings(), listener);
                }
            } catch (IOException e) {
                throw new RunFailedException("could not write " + RequestJournal.FILE_NAME + " in "
                        + common.resultsDir() + ": " + e.getMessage(), e);
            }
        }
        BenchmarkRun run = result.toBenchmarkRun(settings(endpointShown, tokenizer, corpus));
        // client special tokens (Llama-2's BOS) are what counting an empty text yields
        MetricsConfig metricsConfig = new MetricsConfig(new TokenCounting(tokenizer.count(""), true), options.slo());
        RunMetrics metrics = RunMetrics.of(run, metricsConfig);
        // our own table first: stdout ends with llmperf's block, as llmperf's does
        out.print(SummaryConsoleReport.render(run, metrics));
        out.println();
        if (result.timedOut()) {
            out.println("Test timed out before all requests could be completed.");
        }
        out.print(LlmperfConsoleReport.render(run));
        out.flush();
        writeFiles(run, metrics);
        return result.stopped() ? ExitCodes.INTERRUPTED : ExitCodes.OK;
    }

    /** The load flags (see {@link LoadFlags}); {@link LoadPlan#NONE} runs llmperf's closed loop as below. */
    TokenBenchmark withLoad(LoadPlan plan) {
        this.load = plan;
        return this;
    }

    /** requests.jsonl: each record on disk the moment it ends, so a killed run loses nothing completed. */
    private RequestJournal openJournal() throws IOException {
        return common.resultsDir() == null ? null : RequestJournal.create(common.resultsDir());
    }

    private PromptParams promptParams() {
        PromptMode mode = options.promptMode().equals("exact") ? PromptMode.EXACT : PromptMode.LLMPERF;
        return new PromptParams(options.meanInputTokens(), options.stddevInputTokens(), options.meanOutputTokens(),
                options.stddevOutputTokens(), common.maxNumCompletedRequests(), mode, options.seed());
    }

    private ClosedLoopSettings loopSettings() {
        return new ClosedLoopSettings(common.numConcurrentRequests(), Duration.ofSeconds(common.timeoutSeconds()))
                .withMaxCompleted(common.maxNumCompletedRequests());
    }

    private BenchmarkSettings settings(String endpoint, Tokenizer tokenizer, Corpus corpus) {
        return new BenchmarkSettings(common.model(), options.meanInputTokens(), options.stddevInputTokens(),
                options.meanOutputTokens(), options.stddevOutputTokens(), common.numConcurrentRequests(),
                common.timeoutSeconds(), common.maxNumCompletedRequests(), common.additionalSamplingParams(),
                common.llmApi(), common.metadata(), endpoint, tokenizer.id(), options.promptMode(), options.seed());
    }

    private void writeFiles(BenchmarkRun run, RunMetrics metrics) {
        if (common.resultsDir() == null) {
            return;
        }
        try {
            LlmperfResultFiles files = LlmperfResultWriter.write(run, common.resultsDir());
            Path summary = SummaryJson.write(run, metrics, VersionProvider.version(), RunEnvironment.current(),
                    common.resultsDir());
            err.println("Results written to " + files.summaryJson().getParent().toAbsolutePath() + ": "
                    + files.summaryJson().getFileName() + ", " + files.individualResponsesJson().getFileName()
                    + ", " + files.requestsCsv().getFileName() + ", " + summary.getFileName());
        } catch (IOException e) {
            throw new RunFailedException("could not write results to " + common.resultsDir() + ": " + e, e);
        }
    }
}
