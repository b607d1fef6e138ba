package io.llmperf4j.run;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.output.ResultFiles;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A token benchmark, start to end, whatever its load and wherever it runs: the workload, the results folder
 * (locked), the endpoint and the executor of the levels (this machine, or a cluster's workers), each model's levels
 * through a {@link ModelRun} (files, report), then, for several models, the comparison. llmperf's plain closed
 * loop is the plan of one level and one model ({@link LoadPlan#plain}): it prints and writes exactly llmperf's files.
 * Everything that can be checked is checked before the first request is sent; Ctrl-C is staged
 * ({@link StopControl}).
 */
final class TokenRun {
    private final RunRequest request;
    private final CommonSettings common;
    private final PrintStream out;
    private final PrintStream err;
    private final FailureGate failureGate;

    TokenRun(RunRequest request, PrintStream out, PrintStream err, FailureGate failureGate) {
        this.failureGate = failureGate;
        this.request = request;
        this.common = request.common();
        this.out = out;
        this.err = err;
    }

    RunStatus run() {
        if (request.workload().meanInputTokens() < 40) {
            // llmperf prints this (its number is stale: the prefix is now about 27 tokens)
            err.println("the minimum number of input tokens that will be sent is 41 because of the prompting "
                    + "logic right now");
        }
        WorkloadSource workload = WorkloadSource.resolve(request.workload(), common.maxNumCompletedRequests(),
                common.additionalSamplingParams(), err);
        try (ResultsFolder ignored = ResultsFolder.lock(common.resultsDir(), common.overwrite())) {
            if (request.cluster() == null && request.clientWarmup()) {
                ClientWarmup.run(outputCounter(workload));
            }
            return runModels(workload);
        }
    }

    private RunStatus runModels(WorkloadSource workload) {
        // client special tokens (Llama-2's BOS) are what counting an empty text yields
        int clientSpecialTokens = workload.countFromUsage() ? 0 : workload.promptTokenizer().count("");
        MetricsConfig metricsConfig = new MetricsConfig(new TokenCounting(clientSpecialTokens, true), request.slo());
        TokenCounter counter = outputCounter(workload);
        LoadPlan plan = request.load();
        StopControl stops = new StopControl(err, plan.multiLevel() || plan.comparison());
        List<ModelRun> runs = new ArrayList<>();
        try (LoadExecutor executor = request.cluster() == null ? LocalExecutor.open(request, err)
                : ClusterExecutor.open(request, workload.requests(), counter,
                ModelRun.outputTokens(metricsConfig.tokenCounting()), err)) {
            BenchmarkSettings base = settings(executor.uri().toString(), workload);
            // the workload's seed (--seed) also seeds the arrivals, unless --arrival-seed is given
            plan = plan.seededBy(base.seed());
            if (plan.active()) {
                err.println("llmperf4j: load: " + plan.describe() + executor.where(plan)
                        + (plan.comparison() ? "; models compared: " + String.join(", ", plan.models()) : ""));
            }
            ServerMetricsSession serverMetrics = ServerMetricsSession.open(request.serverMetrics(), executor.uri(),
                    executor.apiKey(), common, err);
            ModelRun.Context context = new ModelRun.Context(plan, workload.requests(), counter,
                    run -> withServerCounts(run, workload), metricsConfig, stops, out, err,
                    ResultFiles.tokenBenchmark(request.saveEvents()), serverMetrics);
            try (InterruptHandler ignored = InterruptHandler.installStaged(stops)) {
                for (int i = 0; i < plan.models().size(); i++) {
                    if (!stops.mayStartModel(i, plan.pause())) break;
                    String model = plan.models().get(i);
                    ModelRun run = new ModelRun(model, ModelComparison.modelDir(common.resultsDir(), plan, model), base,
                            context);
                    executor.run(model, plan, run, stops);
                    runs.add(run);
                    run.print(out);
                }
            }
        }
        if (plan.comparison()) {
            ModelComparison.print(runs, plan, common.resultsDir(), out, err);
        }
        if (stops.interrupted()) return RunStatus.INTERRUPTED;
        List<RequestRecord> records = new ArrayList<>();
        // harness iterations keep no per-level run: they are judged by their own statistics
        runs.forEach(run -> run.levels().stream().filter(level -> level.run() != null)
                .forEach(level -> records.addAll(level.run().records())));
        return failureGate.judge(records, err);
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

    /** The run's parameters as llmperf echoes them, for the endpoint shown in files (model and level set later). */
    private BenchmarkSettings settings(String endpoint, WorkloadSource workload) {
        WorkloadSpec w = request.workload();
        return new BenchmarkSettings(common.model(), w.meanInputTokens(), w.stddevInputTokens(),
                w.meanOutputTokens(), w.stddevOutputTokens(), common.numConcurrentRequests(),
                common.timeoutSeconds(), common.maxNumCompletedRequests(), common.additionalSamplingParams(),
                common.llmApi(), common.metadata(), endpoint, workload.description(), workload.promptMode(),
                w.seed());
    }
}
