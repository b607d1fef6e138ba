package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ChatCompletionsClient;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.csv.EventCsvWriter;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.html.HtmlReportOptions;
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

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
    private ClusterFlags.ClusterOptions cluster;

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
        WorkloadSource workload = WorkloadSource.resolve(options.workload(), options.meanInputTokens(),
                options.stddevInputTokens(), options.meanOutputTokens(), options.stddevOutputTokens(),
                common.maxNumCompletedRequests(), common.additionalSamplingParams(), err);
        Tokenizer tokenizer = workload.promptTokenizer();
        List<RequestSpec> specs = workload.requests();
        ResultsFolder.prepare(common.resultsDir());
        if (cluster != null) { // the workers send the requests: no client warm-up here
            return new DistributedTokenBenchmark(this, options, load, cluster, out, err).run(workload);
        }
        if (options.clientWarmup()) {
            ClientWarmup.run();
        }

        if (load.active()) { // load flags or several models: open loop, sweeps, warmup, iterations, comparison
            LlmApi api = common.api(options.stream(), null);
            return new LoadRun(options, load, out, err).run(
                    new LoadRun.Workload(specs, tokenizer, outputCounter(workload),
                            workload.countFromUsage() ? 0 : tokenizer.count(""), run -> withServerCounts(run, workload),
                            endpoint -> settings(endpoint, workload)),
                    new LoadRun.Connector(endpoint -> endpoint.uri(api), (endpoint, model, connections) ->
                            new ChatCompletionsClient(common.clientConfig(endpoint, api,
                                    common.additionalSamplingParams(), options.includeUsage(), model, connections),
                                    api)));
        }
        ClosedLoopResult result;
        String endpointShown;
        try (EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(), EndpointUnderTest.ESTIMATED_PROMPT_TOKENS, err)) {
            LlmApi api = common.api(options.stream(), null);
            endpointShown = endpoint.uri(api).toString();
            Preflight.checkReachable(endpoint.uri(api));
            try (ChatCompletionsClient client = common.newClient(endpoint, api, common.additionalSamplingParams(),
                    options.includeUsage());
                 RequestJournal journal = openJournal()) {
                ClosedLoopRunner runner = new ClosedLoopRunner(client, outputCounter(workload));
                ProgressPrinter progress = ProgressPrinter.forStderr(err, specs.size());
                List<RequestRecord> recorded = new ArrayList<>(); // the listener runs on this thread only
                long startEpochMillis = System.currentTimeMillis();
                long startNanos = System.nanoTime();
                RecordListener listener = record -> {
                    recorded.add(record);
                    if (journal != null) {
                        journal.append(record);
                    }
                    progress.onRecord(record);
                };
                try (InterruptHandler ignored = InterruptHandler.install(runner::stop, err)) {
                    result = runner.run(specs, loopSettings(), listener);
                } catch (RuntimeException fatal) {
                    progress.finish();
                    throw failedRunWritten(fatal, new BenchmarkRun(settings(endpointShown, workload), recorded,
                            startEpochMillis, System.currentTimeMillis(), System.nanoTime() - startNanos,
                            recorded.size(), false), workload, tokenizer);
                } finally {
                    progress.finish();
                }
            } catch (IOException e) {
                throw new RunFailedException("could not write " + RequestJournal.FILE_NAME + " in "
                        + common.resultsDir() + ": " + e.getMessage(), e);
            }
        }
        BenchmarkRun run = withServerCounts(result.toBenchmarkRun(settings(endpointShown, workload)), workload);
        RunMetrics metrics = metrics(run, workload, tokenizer);
        // our own table first: stdout ends with llmperf's block, as llmperf's does
        out.print(SummaryConsoleReport.render(run, metrics));
        out.println();
        out.print(LlmperfConsoleReport.render(run)); // with llmperf's "Test timed out ..." line first when it did
        out.flush();
        writeFiles(run, metrics);
        return result.stopped() ? ExitCodes.INTERRUPTED : ExitCodes.OK;
    }

    /** Run on the workers of a cluster (see {@link ClusterFlags}) instead of from this process. */
    TokenBenchmark withCluster(ClusterFlags.ClusterOptions options) {
        this.cluster = options;
        return this;
    }

    /** The load flags (see {@link LoadFlags}); {@link LoadPlan#NONE} runs llmperf's closed loop as below. */
    TokenBenchmark withLoad(LoadPlan plan) {
        this.load = plan;
        return this;
    }

    RunMetrics metrics(BenchmarkRun run, WorkloadSource workload, Tokenizer tokenizer) {
        // client special tokens (Llama-2's BOS) are what counting an empty text yields
        int clientSpecialTokens = workload.countFromUsage() ? 0 : tokenizer.count("");
        return RunMetrics.of(run, new MetricsConfig(new TokenCounting(clientSpecialTokens, true), options.slo()));
    }

    /**
     * A run that died (a full disk under the journal, a tokenizer that threw) still writes every file from the
     * requests recorded until then; the returned exception says so, with the cause.
     */
    private RunFailedException failedRunWritten(RuntimeException fatal, BenchmarkRun partial, WorkloadSource workload,
                                                Tokenizer tokenizer) {
        String cause = fatal.getMessage() == null ? fatal.getClass().getSimpleName() : fatal.getMessage();
        if (common.resultsDir() == null) {
            return new RunFailedException("the run failed after " + partial.records().size() + " requests: " + cause,
                    fatal);
        }
        try {
            BenchmarkRun run = withServerCounts(partial, workload);
            writeFiles(run, metrics(run, workload, tokenizer));
            return new RunFailedException("the run failed after " + run.records().size() + " requests (" + cause
                    + "); the requests recorded until then are written to " + common.resultsDir(), fatal);
        } catch (RuntimeException alsoFailed) {
            fatal.addSuppressed(alsoFailed);
            return new RunFailedException("the run failed after " + partial.records().size() + " requests (" + cause
                    + ") and its results could not be written: " + alsoFailed.getMessage(), fatal);
        }
    }

    /** requests.jsonl: each record on disk the moment it ends, so a killed run loses nothing completed. */
    private RequestJournal openJournal() throws IOException {
        return common.resultsDir() == null ? null : RequestJournal.create(common.resultsDir());
    }

    /** Output tokens by the client tokenizer, or a placeholder filled from usage after the run (--tokenizer server). */
    static TokenCounter outputCounter(WorkloadSource workload) {
        return workload.countFromUsage() ? text -> -1 : workload.promptTokenizer();
    }

    /** With --tokenizer server, llmperf's output count is the server's completion_tokens; a server without usage is an error. */
    static BenchmarkRun withServerCounts(BenchmarkRun run, WorkloadSource workload) {
        if (!workload.countFromUsage()) {
            return run;
        }
        List<RequestRecord> counted = new ArrayList<>();
        for (RequestRecord record : run.records()) {
            if (record.succeeded() && record.usageCompletionTokens() == null) {
                throw new RunFailedException("--tokenizer server: the server sent no usage (request "
                        + record.clientRequestId() + "); drop --no-stream-usage, or count with a tokenizer");
            }
            counted.add(record.withOutputTokens(record.usageCompletionTokens() == null ? 0 : record.usageCompletionTokens()));
        }
        return run.withRecords(counted);
    }

    /**
     * Every prompt is sent exactly once, in order, whichever slot is free: llmperf's slot stride re-sends some
     * prompts and skips others when request times differ, so what was sent would depend on timing.
     */
    private ClosedLoopSettings loopSettings() {
        return new ClosedLoopSettings(common.numConcurrentRequests(), Duration.ofSeconds(common.timeoutSeconds()))
                .withMaxCompleted(common.maxNumCompletedRequests())
                .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER);
    }

    BenchmarkSettings settings(String endpoint, WorkloadSource workload) {
        return new BenchmarkSettings(common.model(), options.meanInputTokens(), options.stddevInputTokens(),
                options.meanOutputTokens(), options.stddevOutputTokens(), common.numConcurrentRequests(),
                common.timeoutSeconds(), common.maxNumCompletedRequests(), common.additionalSamplingParams(),
                common.llmApi(), common.metadata(), endpoint, workload.description(), workload.promptMode(),
                options.workload().seed);
    }

    private void writeFiles(BenchmarkRun run, RunMetrics metrics) {
        if (common.resultsDir() == null) {
            return;
        }
        try {
            LlmperfResultFiles files = LlmperfResultWriter.write(run, common.resultsDir());
            RunEnvironment environment = RunEnvironment.current();
            Path summary = SummaryJson.write(run, metrics, VersionProvider.version(), environment,
                    common.resultsDir());
            Path report = HtmlReport.write(run, metrics, VersionProvider.version(), environment,
                    HtmlReportOptions.DEFAULT, common.resultsDir());
            Path events = options.saveEvents() ? EventCsvWriter.write(run, common.resultsDir()) : null;
            err.println("Results written to " + files.summaryJson().getParent().toAbsolutePath() + ": "
                    + files.summaryJson().getFileName() + ", " + files.individualResponsesJson().getFileName()
                    + ", " + files.requestsCsv().getFileName() + ", " + summary.getFileName() + ", "
                    + RequestJournal.FILE_NAME + ", " + report.getFileName()
                    + (events == null ? "" : ", " + events.getFileName()));
        } catch (IOException e) {
            throw new RunFailedException("could not write results to " + common.resultsDir() + ": " + e, e);
        }
    }
}
