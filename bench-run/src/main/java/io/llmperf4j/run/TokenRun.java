package io.llmperf4j.run;

import io.llmperf4j.engine.load.LevelWorkloads;
import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.metrics.ImageUsage;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.output.ResultFiles;
import io.llmperf4j.run.search.SearchPlan;
import io.llmperf4j.run.search.SearchResult;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A token benchmark, start to end, whatever its load and wherever it runs: the workload, the results folder
 * (locked), the endpoint and the executor of the levels (this machine, or a cluster's workers), each model's levels
 * through a {@link ModelRun} (files, report), then, for several models, the comparison. llmperf's plain closed
 * loop is the plan of one level and one model ({@link LoadPlan#plain}): it prints and writes exactly llmperf's files.
 * Everything that can be checked is checked before the first request is sent; Ctrl-C is staged
 * ({@link StopControl}).
 */
final class TokenRun {
    /** Below this many output tokens in all (llmperf's default run is 10 x 150) a plain run warms up quickly. */
    static final long QUICK_RUN_OUTPUT_TOKENS = 5_000;
    /** What a request without max_tokens counts for in that sum: llmperf's default --mean-output-tokens. */
    private static final int DEFAULT_ANSWER_TOKENS = 150;
    /** The prompt modes whose prompts start with llmperf's instruction prefix. */
    private static final Set<String> SYNTHESIZED = Set.of("llmperf", "exact");
    private final RunRequest request;
    private final CommonSettings common;
    private final PrintStream out;
    private final PrintStream err;
    private final FailureGate failureGate;
    /** --slo-exit: a missed objective ends the run {@link RunStatus#SLO_MISSED} ({@link SloGate}). */
    private final boolean sloExit;
    /** --quiet: {@code out} is not shown, so the run's warnings also go to {@code err} ({@link LevelWarnings#quiet}). */
    private final boolean quiet;
    private SearchResult searchResult;

    TokenRun(RunRequest request, PrintStream out, PrintStream err, FailureGate failureGate, boolean sloExit,
             boolean quiet) {
        this.failureGate = failureGate;
        this.sloExit = sloExit;
        this.quiet = quiet;
        this.request = request;
        this.common = request.common();
        this.out = out;
        this.err = err;
    }

    /** What the capacity search found, after {@link #run()} with a search plan; else null. */
    SearchResult searchResult() {
        return searchResult;
    }

    RunStatus run() {
        LoadPlan plan = request.load();
        StopControl stops = new StopControl(err, plan.multiLevel() || plan.comparison());
        // from the start: a signal before the measurement (the dataset, the pre-run check, the warm-up) ends the run
        // with one line, the results folder released and nothing of an earlier run removed
        stops.beforeMeasurement(() -> { });
        try (InterruptHandler ignored = InterruptHandler.installStaged(stops)) {
            WorkloadSource workload = WorkloadSource.resolve(request.workload(), common.maxNumCompletedRequests(),
                    common.additionalSamplingParams(), WorkloadSource.Levels.of(plan, request.search() != null), err);
            printMinimumInputTokens(workload);
            request.workload().checkImageDetailFits(common.llmApi());
            workload.checkImageDetailHasImages(request.workload().imageDetail());
            workload.checkImagesFit(common.llmApi(), request.cluster() != null, plan.maxConnections(), err);
            workload.sayDatasetReuse(err);
            try (ResultsFolder folder = ResultsFolder.lock(common.resultsDir(), common.overwrite(), err)) {
                stops.beforeMeasurement(folder::close); // the lock released, a folder created empty removed
                stops.atQuit(folder::quit); // a quit at once still leaves the folder losing nothing
                // client special tokens (Llama-2's BOS) are what counting an empty text yields. Counted before the
                // warm-up: after it, the tokenizer's compiled code has never seen an empty text, and this one call
                // threw it back to the interpreter, to be compiled again inside the run (0.3 s of C2 in a 1.6 s
                // ceiling)
                int clientSpecialTokens = workload.countFromUsage() ? 0 : workload.promptTokenizer().count("");
                return runModels(workload, clientSpecialTokens, stops, folder);
            }
        }
    }

    /**
     * llmperf's line for a mean input length under 40, with the real figure (llmperf's 41 is stale): the shortest
     * prompt prefix among the synthesized prompts, counted by their tokenizer. Printed once the prompts are drawn, so
     * a length that cannot be drawn gets only the error, which names the same prefix length.
     */
    private void printMinimumInputTokens(WorkloadSource workload) {
        if (request.workload().meanInputTokens() >= 40 || !SYNTHESIZED.contains(workload.promptMode())) return;
        workload.requests().stream().mapToInt(RequestSpec::maxTokens).filter(m -> m != RequestSpec.NO_MAX_TOKENS)
                .map(m -> PromptSynthesizer.promptPrefixTokens(workload.promptTokenizer(), m)).min()
                .ifPresent(min -> err.println("the minimum number of input tokens that will be sent is " + min
                        + " because of the prompting logic right now"));
    }

    /**
     * The full warm-up for runs long or heavy enough that compilation inside them would show (sweeps, open loops,
     * iterations, searches, and plain runs of {@link #QUICK_RUN_OUTPUT_TOKENS} output tokens or more); the quick
     * one for llmperf's short plain runs, which it would otherwise outlast several times over.
     */
    static ClientWarmup.Budget warmupBudget(LoadPlan plan, List<RequestSpec> requests) {
        if (plan.active()) return ClientWarmup.Budget.FULL;
        long outputTokens = 0;
        for (RequestSpec spec : requests) {
            // no max_tokens: the server decides; count it as llmperf's default answer
            outputTokens += spec.maxTokens() == RequestSpec.NO_MAX_TOKENS ? DEFAULT_ANSWER_TOKENS : spec.maxTokens();
        }
        outputTokens *= plan.models().size();
        return outputTokens < QUICK_RUN_OUTPUT_TOKENS ? ClientWarmup.Budget.QUICK : ClientWarmup.Budget.FULL;
    }

    /**
     * Whether the client warm-up also sends an open loop's wave: for an open loop, a rate sweep or a rate search
     * ({@code search} null when there is none), whose requests go out from the pacer thread.
     */
    static boolean warmsThePacer(LoadPlan plan, SearchPlan search) {
        return search != null ? search.mode() == SearchPlan.Mode.RATE : plan.kind().open();
    }

    private RunStatus runModels(WorkloadSource workload, int clientSpecialTokens, StopControl stops,
                                ResultsFolder folder) {
        // the embedded simulated server shares this process's CPUs with the client: CLIENT_BOTTLENECK names it
        MetricsConfig metricsConfig = new MetricsConfig(new TokenCounting(clientSpecialTokens, true), request.slo(),
                request.objectives(), request.cluster() == null && !(common.target() instanceof EndpointTarget.Remote));
        TokenCounter counter = outputCounter(workload);
        LoadPlan plan = request.load();
        ResultFiles files = ResultFiles.tokenBenchmark(request.saveEvents());
        List<ModelRun> runs = new ArrayList<>();
        try (LoadExecutor executor = request.cluster() == null ? LocalExecutor.open(request, err)
                : ClusterExecutor.open(request, counter,
                metricsConfig.tokenCounting().policy(), err)) {
            BenchmarkSettings base = settings(executor.uri().toString(), workload);
            // the workload's seed (--seed) also seeds the arrivals, unless --arrival-seed is given
            plan = plan.seededBy(base.seed());
            if (plan.active()) {
                err.println("llmperf4j: load: " + plan.describe() + executor.where(plan)
                        + (plan.comparison() ? "; models compared: " + String.join(", ", plan.models()) : ""));
            }
            ConcurrencyWarning.concurrencyAboveRequests(plan).ifPresent(err::println);
            ScheduleTimeout.beforeRun(plan, workload.requests()).ifPresent(err::println);
            ServerMetricsSession serverMetrics = ServerMetricsSession.open(request.serverMetrics(), executor.uri(),
                    executor.apiKey(), common, err);
            // After the endpoint is up: the embedded server's classes (Netty's server channels) are loaded by then.
            // Loaded after the warm-up, they broke C2's class-hierarchy assumptions about Netty's channel classes
            // and threw the warmed client code away just before the run (-XX:+LogCompilation: dependency_failed).
            if (request.cluster() == null && request.clientWarmup()) {
                ClientWarmup.Budget budget = ClientWarmup.Budget.capped(warmupBudget(plan, workload.requests()));
                if (!ClientWarmup.warmed()) {
                    err.println("llmperf4j: client warm-up: up to " + budget.maxSeconds() + " s, against an "
                            + "in-process responder, not the endpoint (--no-client-warmup skips it)");
                }
                ClientWarmup.run(counter, budget, warmsThePacer(plan, request.search()))
                        .flatMap(ClientWarmup.Outcome::notice).ifPresent(err::println);
            }
            // from here signals are staged; the earlier run's files (--overwrite) go as the first level starts
            stops.measurementStarts(folder::replaceEarlier);
            long seed = base.seed();
            int sharedPrefixTokens = workload.sharedPrefixTokens();
            if (request.search() != null) {
                // each level the search probes sends prompts of its own (synthetic ones), as a sweep's levels do,
                // and a level limited by time a fresh one for every request
                int[] probes = {0};
                // a workload of sessions (--turns; a trace is refused with --search), as ModelRun tells them: its
                // rate levels start sessions, so the search names its load in sessions/s
                SearchRun search = new SearchRun(request.search(), executor, levelPlan -> {
                    int probe = probes[0]++;
                    return new ModelRun.Context(levelPlan, workload.requests(),
                            LevelPrompts.of(workload, request.workload(), seed, levelPlan, probe,
                                    request.cluster() != null, err, "capacity search", probe == 0),
                            workload.drawsFresh(), LevelPrompts.warmupDrawnApart(workload, levelPlan,
                            request.cluster() != null), sharedPrefixTokens, counter,
                            run -> withServerCounts(run, workload), metricsConfig, stops, out, err,
                            files, serverMetrics, folder);
                }, base,
                        metricsConfig.tokenCounting(), common.resultsDir(), stops, out, err, base.seed(),
                        common.timeoutSeconds(), workload.requests() instanceof PacedWorkload, folder);
                searchResult = search.run(plan.models().get(0));
                if (quiet) {
                    searchResult.document().warnings().forEach(w -> err.println("llmperf4j: warning: " + w));
                    searchResult.levelWarnings().forEach(w -> err.println("llmperf4j: warning: " + w));
                }
                if (stops.interrupted()) return RunStatus.INTERRUPTED;
                // --overwrite: a search whose every level's every request failed gives the folder back to the
                // search it was replacing, as a plain run or a sweep does
                folder.keepEarlierIfEveryRequestFailed(search.records());
                // the search's verdict is the answer, failures included (they are judged by the objectives)
                return RunStatus.COMPLETED;
            }
            // each model (of a comparison), level and fork sends prompts of its own (synthetic ones); with
            // iterations or --duration, every request does
            LevelWorkloads levelWorkloads = LevelPrompts.of(workload, request.workload(), seed, plan,
                    request.cluster() != null, err);
            for (int i = 0; i < plan.models().size(); i++) {
                if (!stops.mayStartModel(i, plan.pause())) break;
                String model = plan.models().get(i);
                int modelIndex = i;
                ModelRun.Context context = new ModelRun.Context(plan, workload.requests(),
                        levelWorkloads, workload.drawsFresh(),
                        LevelPrompts.warmupDrawnApart(workload, plan, request.cluster() != null),
                        sharedPrefixTokens, counter,
                        run -> withServerCounts(run, workload), metricsConfig, stops, out, err, files,
                        serverMetrics, folder);
                ModelRun run = new ModelRun(model, ModelComparison.modelDir(common.resultsDir(), plan, model), base,
                        context);
                run.printFirst(); // a full disk under the files: the console report first, then the error
                executor.run(model, plan, run, stops);
                runs.add(run);
                run.print(out);
                if (quiet) LevelWarnings.quiet(run, plan).forEach(err::println);
                run.failIfFilesNotWritten();
            }
        }
        if (plan.comparison()) {
            ModelComparison.print(runs, plan, common.resultsDir(), out, err);
        }
        if (stops.interrupted()) {
            if (stops.stoppedBy() != null) {
                err.println("llmperf4j: the run was stopped by " + stops.stoppedBy() + " before its end; its summary "
                        + "says so (run.stopped_by in the _llmperf4j_summary.json of each level it cut short)");
            } else if (stops.uncutSignal() != null) {
                err.println("llmperf4j: " + stops.uncutSignal() + " came after every request had ended on the wire "
                        + "(while their tokens were counted or the files written): nothing was cut short, the "
                        + "results are whole" + (plan.multiLevel() || plan.comparison()
                        ? "; no level started after it" : ""));
            }
            return RunStatus.INTERRUPTED;
        }
        List<RequestRecord> records = new ArrayList<>();
        // a level's measured requests; with iterations, those that ended in the measured iterations (warmup
        // iterations and the cancellations at each fork's end left out), so --max-error-rate judges what is scored
        runs.forEach(run -> run.levels().forEach(level -> {
            if (level.run() != null) records.addAll(level.run().records());
            level.outcome().harness().ifPresent(h -> records.addAll(h.measuredRecords()));
        }));
        // what load workers that left the cluster never sent is in no record: failed against the asked count too
        RunStatus status = failureGate.judge(records, runs.stream().mapToInt(ModelRun::neverSentByLostWorkers).sum(),
                err);
        // --overwrite: a rerun that failed entirely gives the folder back to the run it was replacing
        folder.keepEarlierIfEveryRequestFailed(records);
        // last: after every file and report, and after the failure gate, whose exit code 4 says more
        return status == RunStatus.COMPLETED && sloExit ? SloGate.judge(runs, plan, err) : status;
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

    /** The metadata echoed into the files, with {@code llmperf4j_image_detail} when --image-detail was given. */
    private Map<String, String> withImageDetail(Map<String, String> metadata) {
        String detail = request.workload().imageDetail();
        if (detail == null) return metadata;
        Map<String, String> echoed = new LinkedHashMap<>(metadata);
        // the detail sent wins over a --metadata of the same key: the images block reads it as what was sent
        echoed.put(ImageUsage.DETAIL_METADATA_KEY, detail);
        return echoed;
    }

    /** The run's parameters as llmperf echoes them, for the endpoint shown in files (model and level set later). */
    private BenchmarkSettings settings(String endpoint, WorkloadSource workload) {
        TokenShape shape = TokenShape.of(request.workload(), workload);
        return BenchmarkSettings.builder()
                .model(common.model())
                .meanInputTokens(shape.meanInputTokens())
                .stddevInputTokens(shape.stddevInputTokens())
                .meanOutputTokens(shape.meanOutputTokens())
                .stddevOutputTokens(shape.stddevOutputTokens())
                .numConcurrentRequests(common.numConcurrentRequests())
                .timeoutSeconds(common.timeoutSeconds())
                .maxNumCompletedRequests(common.maxNumCompletedRequests())
                .additionalSamplingParams(common.additionalSamplingParams())
                .llmApi(common.llmApi())
                .metadata(withImageDetail(common.metadata()))
                .endpoint(endpoint)
                .tokenizer(workload.description())
                .promptMode(workload.promptMode())
                .seed(request.workload().seed())
                .stream(request.stream())
                .connectionMode(common.connectionMode().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
                // built once: every level, model compared and search probe copies it into its summary
                .simulated(common.target() instanceof EndpointTarget.Embedded)
                .inputTokensTokenizer(workload.inputTokensTokenizer())
                .build();
    }
}
