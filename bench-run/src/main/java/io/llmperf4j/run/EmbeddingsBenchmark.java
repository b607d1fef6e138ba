package io.llmperf4j.run;

import io.llmperf4j.model.disk.WholeFiles;
import io.llmperf4j.engine.Benchmark;
import io.llmperf4j.engine.BenchmarkListener;
import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.LevelOutcome;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.embeddings.EmbeddingsSummary;
import io.llmperf4j.report.embeddings.EmbeddingsSweep;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.output.OpenLoopFile;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code token-benchmark --llm-api embeddings}: the workload's prompts as inputs, {@code --embedding-batch-size}
 * of them per request, under the token benchmark's load models: its {@link LoadPlan} (llmperf's closed loop without
 * load flags; --request-rate with constant, Poisson or gamma arrivals; --concurrency-sweep and --rate-sweep; warmup)
 * run by the engine's {@link Benchmark}, signals handled by {@link StopControl} from the start (before the
 * measurement: one line, nothing recorded, the results folder released). Each level prints and writes its
 * {@link EmbeddingsSummary} (a folder per level in a sweep) instead of llmperf's files, which describe generation;
 * a sweep adds its table ({@link EmbeddingsSweep}) and a verdict on input tokens/s and failures.
 */
final class EmbeddingsBenchmark implements BenchmarkListener {
    private final RunRequest options;
    private final CommonSettings common;
    private final PrintStream out;
    private final PrintStream err;
    private LoadPlan plan;
    /** --quiet: {@code out} is not shown, so a sweep's verdict warnings also go to {@code err}. */
    private final boolean quiet;
    /** Whether the requests failed the run (every one, or more than --max-error-rate percent): exit 4. */
    private final FailureGate failureGate;

    private String endpointShown;
    private int workloadSize;
    /** The inputs' token shape, in the file names and the summary as a token benchmark's. */
    private TokenShape shape;
    private Path levelDir;
    private volatile ProgressPrinter progress; // read by I/O threads too (onMeasuredWireEnd)
    private StopControl stops;
    /** The results folder, which says where the files went ({@link ResultsFolder#announceWritten}). */
    private ResultsFolder folder;
    private final List<EmbeddingsSweep.Level> levels = new ArrayList<>();
    private final List<LevelOutcome> outcomes = new ArrayList<>();
    /** A single level's files that could not be written (a full disk): thrown once its figures are printed. */
    private RunFailedException filesNotWritten;

    EmbeddingsBenchmark(RunRequest options, PrintStream out, PrintStream err, FailureGate failureGate, boolean quiet) {
        this.options = options;
        this.quiet = quiet;
        this.failureGate = failureGate;
        this.common = options.common();
        this.plan = options.load();
        this.out = out;
        this.err = err;
        if (plan.comparison()) {
            throw new InvalidRequestException("--llm-api embeddings benchmarks one --model at a time");
        }
        if (plan.harness() != null) {
            throw new InvalidRequestException("--iterations is not available with --llm-api embeddings (JMH's scores are "
                    + "generation metrics); use --concurrency-sweep, --rate-sweep or --request-rate");
        }
    }

    RunStatus run() {
        stops = new StopControl(err, plan.multiLevel());
        // from the start: a signal before the measurement (the tokenizer, the dataset, the pre-run check) ends the
        // run with one line, the results folder released and nothing of an earlier run removed
        stops.beforeMeasurement(() -> { });
        try (InterruptHandler ignored = InterruptHandler.installStaged(stops)) {
            int batch = options.embeddingBatchSize();
            int requests = common.maxNumCompletedRequests();
            WorkloadSource workload = WorkloadSource.resolve(options.workload(), Math.multiplyExact(requests, batch),
                    common.additionalSamplingParams(), err);
            options.workload().checkImageDetailFits(common.llmApi());
            workload.checkImagesFit(common.llmApi(), false, err);
            workload.sayDatasetReuse(err);
            List<RequestSpec> inputs = workload.requests();
            shape = TokenShape.of(options.workload(), workload);
            List<List<String>> batches = new ArrayList<>(requests);
            List<RequestSpec> specs = new ArrayList<>(requests);
            for (int i = 0; i < requests; i++) {
                List<RequestSpec> group = inputs.subList(i * batch, (i + 1) * batch);
                batches.add(group.stream().map(RequestSpec::prompt).toList());
                int tokens = group.stream().mapToInt(RequestSpec::numberInputTokens).sum();
                specs.add(new RequestSpec(i, group.get(0).prompt(), tokens, RequestSpec.NO_MAX_TOKENS));
            }
            workloadSize = specs.size();
            try (ResultsFolder folder = ResultsFolder.lock(common.resultsDir(), common.overwrite(), err)) {
                stops.beforeMeasurement(folder::close); // the lock released, a folder created empty removed
                stops.atQuit(folder::quit); // a quit at once still leaves the folder losing nothing
                return run(workload, batches, specs, folder);
            }
        }
    }

    private RunStatus run(WorkloadSource workload, List<List<String>> batches, List<RequestSpec> specs,
                          ResultsFolder folder) {
        this.folder = folder;
        BenchmarkResult result;
        try (EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(), workload.promptTokenizer(), err)) {
            // open-loop arrivals cycle through the specs, so a request's batch is found by its spec's index
            LlmApi api = common.api(false, spec -> batches.get(spec.index()));
            URI uri = endpoint.uri(api);
            endpointShown = uri.toString();
            Preflight.awaitReachable(uri, common.target(), err);
            plan = plan.seededBy(options.workload().seed());
            err.println("llmperf4j: load: " + plan.describe());
            ScheduleTimeout.beforeRun(plan).ifPresent(err::println); // a schedule its --timeout would cut
            Benchmark benchmark = Benchmark.builder()
                    .name("llmperf4j.embeddings")
                    .client(() -> new NettyLlmClient(common.clientConfig(endpoint, api,
                            common.additionalSamplingParams(), false, common.model(), plan.maxConnections()), api))
                    .workload(specs)
                    .load(plan.profile())
                    .warmup(plan.warmup())
                    .tokenCounter(text -> 0)
                    // the sweep verdict's throughput: input tokens, the work an embeddings server does
                    .outputTokens(EmbeddingsSummary::inputTokens)
                    .saturationRules(plan.rules())
                    .param("model", common.model())
                    .listener(this)
                    .build();
            // from here signals are staged; the earlier run's files (--overwrite) go as the first level starts
            stops.measurementStarts(folder::replaceEarlier);
            stops.attach(benchmark);
            try {
                result = benchmark.run();
            } finally {
                stops.detach();
                finishProgress();
            }
        }
        print(result);
        if (filesNotWritten != null) { // the console's figures need no disk: printed first, then the error
            throw new RunFailedException(filesNotWritten.getMessage() + "; the report above has the run's figures",
                    filesNotWritten);
        }
        if (quiet && plan.multiLevel()) {
            result.verdict().warnings().forEach(w -> err.println("llmperf4j: warning: " + w));
        }
        if (stops.interrupted()) return RunStatus.INTERRUPTED;
        List<RequestRecord> records = new ArrayList<>();
        outcomes.forEach(outcome -> outcome.run().ifPresent(load -> records.addAll(load.records())));
        RunStatus status = failureGate.judge(records, err);
        // --overwrite: a rerun that failed entirely gives the folder back to the run it was replacing
        folder.keepEarlierIfEveryRequestFailed(records);
        return status;
    }

    // ---------------------------------------------------------------- listener (the benchmark's thread)

    @Override
    public void onLevelStart(int index, LoadSettings level) {
        HeapBeforeClock.collect(); // before the level's stamps and its connections
        stops.levelStarted();
        Path dir = common.resultsDir();
        levelDir = dir == null ? null : plan.multiLevel() ? dir.resolve(LoadPlan.folder(level)) : dir;
        progress = ProgressPrinter.forStderr(err, LoadPlan.expectedRequests(level, workloadSize),
                plan.multiLevel() ? LoadPlan.label(level) : "");
    }

    @Override
    public void onScheduledRecord(ScheduledRecord record) {
        if (progress != null) {
            progress.onScheduledRecord(record);
        }
    }

    /** The progress line stops counting the arrivals an open loop's end left unsent. */
    @Override
    public void onScheduleCut(int arrivalsNotSent, boolean timedOut) {
        ProgressPrinter p = progress;
        if (p != null) p.onScheduleCut(arrivalsNotSent, timedOut);
    }

    /** The line's clock starts where the summary's window does, as the chat run's (any thread). */
    @Override
    public void onMeasureStart(long nanoTime) {
        ProgressPrinter p = progress;
        if (p != null) p.onMeasureStart(nanoTime);
    }

    /** The line learns when the window ends on the wire, as the chat run's ("window ended at 3.0 s"). */
    @Override
    public void onMeasuredWireEnd(long nanoTime) {
        ProgressPrinter p = progress;
        if (p != null) p.onMeasuredWireEnd(nanoTime);
    }

    @Override
    public void onSendingClosed(long nanoTime) {
        ProgressPrinter p = progress;
        if (p != null) p.onSendingClosed(nanoTime);
    }

    @Override
    public void onLevelOutcome(LevelOutcome outcome) {
        stops.levelEnded();
        LoadResult load = outcome.run().orElseThrow(); // no harness with embeddings
        if (progress != null && load instanceof ClosedLoopResult closed) { // what its end left unsent, as chat's
            progress.onRequestsNotSent(LoadPlan.expectedRequests(outcome.settings(), workloadSize)
                    - closed.records().size(), closed.timedOut());
        }
        finishProgress();
        outcomes.add(outcome);
        EmbeddingsSummary summary = EmbeddingsSummary.of(load.records(), options.embeddingBatchSize(),
                load.durationNanos());
        LoadSettings level = outcome.settings();
        String folder = levelDir == null || !plan.multiLevel() ? null : LoadPlan.folder(level);
        levels.add(new EmbeddingsSweep.Level(level.level(), LoadSettings.formatLevel(level.level()), summary,
                outcome.aborted(), folder));
        if (levelDir != null) {
            try {
                writeLevelFiles(summary, load, level);
            } catch (RunFailedException notWritten) {
                if (plan.multiLevel()) throw notWritten; // a sweep stops at the level whose files did not fit
                filesNotWritten = notWritten;
            }
        }
        if (plan.multiLevel()) {
            err.printf(Locale.ROOT, "llmperf4j: %s done: %d/%d ok, %.2f inputs/s, %.1f input tok/s, p90 %s s%s%n",
                    LoadPlan.label(level), summary.completed(), summary.records().size(), summary.inputsPerSecond(),
                    summary.tokensPerSecond(), LoadConsole.fixed(summary.p90(), 4), // "-" when none succeeded
                    outcome.aborted() ? " (aborted)" : "");
        }
    }

    private void finishProgress() {
        if (progress != null) {
            progress.finish();
            progress = null;
        }
    }

    // ---------------------------------------------------------------- files and stdout

    private String base() {
        return LlmperfFileNames.sanitize(common.model() + "_" + shape.meanInputTokens() + "_"
                + shape.meanOutputTokens());
    }

    private void writeLevelFiles(EmbeddingsSummary summary, LoadResult load, LoadSettings level) {
        int concurrency = PeakInFlight.concurrency(level, load.records(), common.numConcurrentRequests());
        String loadText = level.describe() + (level instanceof OpenLoopSettings o ? ", seed " + o.seed() : "")
                + (plan.warmup() instanceof Warmup.None ? ""
                : "; warmup " + plan.warmupText() + ", excluded from every result");
        EmbeddingsSummary.Settings settings = new EmbeddingsSummary.Settings(common.model(), endpointShown,
                concurrency, shape.meanInputTokens(), shape.stddevInputTokens(), loadText, common.metadata());
        try {
            // each file whole or absent, as a token benchmark's level files
            List<Path> files = WholeFiles.write(levelDir, into -> {
                EmbeddingsSummary.Written written = summary.write(into, base(), settings, load.timedOut());
                List<Path> all = new ArrayList<>(List.of(written.summaryJson(), written.csv()));
                if (load instanceof OpenLoopResult open) {
                    all.add(OpenLoopFile.write(into, base(), LoadFiles.openLoop(common.model(), open,
                            plan.warmupText(), false)));
                }
                return all;
            });
            List<String> names = files.stream().map(f -> f.getFileName().toString()).toList();
            if (!plan.multiLevel()) {
                folder.announceWritten(err, levelDir, String.join(", ", names));
            }
        } catch (IOException e) {
            throw new RunFailedException("could not write results to " + levelDir + ": " + ModelRun.why(e), e);
        }
    }

    private void print(BenchmarkResult result) {
        if (!plan.multiLevel()) {
            if (levels.isEmpty()) {
                return;
            }
            LevelOutcome only = outcomes.get(0);
            if (only.run().orElseThrow().timedOut()) {
                out.println("Test timed out before all requests could be completed.");
            }
            only.run().filter(OpenLoopResult.class::isInstance).map(OpenLoopResult.class::cast)
                    .ifPresent(open -> out.print(LoadConsole.openLoop(open, false) + "\n"));
            out.print(levels.get(0).summary().render());
            out.flush();
            return;
        }
        out.println("Embeddings sweep of " + common.model() + ": " + plan.describe());
        out.print(EmbeddingsSweep.table(plan.kind().open() ? "rate (req/s)" : "concurrency", levels));
        for (String line : verdict(result.verdict())) {
            out.println(line);
        }
        if (result.stopped()) {
            out.println("stopped: the sweep was stopped before its last level");
        }
        out.flush();
        if (common.resultsDir() != null) {
            try {
                Path csv = WholeFiles.write(common.resultsDir(), into -> List.of(EmbeddingsSweep.writeCsv(into,
                        base(), plan.loadUnit(), levels))).get(0); // whole or absent, never cut
                folder.announceWritten(err, common.resultsDir(), csv.getFileName() + " and a folder per level ("
                        + String.join(", ", levels.stream().map(EmbeddingsSweep.Level::folder).toList()) + ")");
            } catch (IOException e) {
                throw new RunFailedException("could not write the sweep table to " + common.resultsDir() + ": "
                        + ModelRun.why(e), e);
            }
        }
    }

    /**
     * The engine's verdict, worded for embeddings: its throughput is input tokens/s, and there is no TTFT (so no red
     * line). Which levels are judged, and why not, as for the token benchmark.
     */
    private List<String> verdict(SaturationVerdict v) {
        List<String> lines = new ArrayList<>();
        for (String line : v.describe(plan.levelName())) {
            if (line.startsWith("TTFT red line:")) continue;
            lines.add(line.replace("output tok/s", "input tok/s"));
        }
        return lines;
    }
}
