package io.llmperf4j.run;

import io.llmperf4j.model.disk.WholeFiles;
import io.llmperf4j.report.summary.Plural;
import io.llmperf4j.engine.Benchmark;
import io.llmperf4j.engine.BenchmarkListener;
import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.LevelOutcome;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.HeaderWait;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.harness.ForkResult;
import io.llmperf4j.engine.harness.HarnessListener;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.harness.IterationResult;
import io.llmperf4j.engine.harness.JmhJsonFormat;
import io.llmperf4j.engine.harness.JmhTextFormat;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LevelWorkloads;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.ServerGone;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.llmperf.LlmperfConsoleReport;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.RunWarnings;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryConsoleReport;
import io.llmperf4j.report.output.JmhFile;
import io.llmperf4j.report.output.LevelOutput;
import io.llmperf4j.report.output.ResultFiles;
import io.llmperf4j.model.disk.ResultsNotWrittenException;
import io.llmperf4j.report.output.SweepFiles;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * One model's part of a run: its levels, on this machine through the engine's {@link Benchmark} or on a cluster
 * ({@link LoadExecutor}), each level's files written
 * the moment the level ends (llmperf's files, llmperf4j's summary and {@code requests.jsonl}, in a folder per level
 * for a sweep), then the model's own files (sweep JSON, CSV and HTML report; JMH JSON and iteration CSV) and its
 * report on stdout. Warmup requests are never journaled, written or counted.
 */
final class ModelRun implements BenchmarkListener {

    /**
     * A level that ran: its outcome and, without a harness, the run as llmperf's model with its metrics, and the
     * server's own metrics when they were scraped (else null).
     */
    record LevelReport(LevelOutcome outcome, String label, BenchmarkRun run, RunMetrics metrics, Path dir,
                       ServerSideSummary server, SummaryDocument.DistributedJson workers) {
        LevelSummary summary() {
            return outcome.summary();
        }
    }

    /**
     * What a model run needs from the command.
     *
     * @param specs         the first level's requests (every level sends as many)
     * @param workloads     each level's (and harness fork's) requests: fresh synthetic prompts per level
     *                      ({@link WorkloadSource#draw}), else {@code specs} every time
     * @param drawnFresh    the prompts are synthetic and not built to share prefixes ({@link
     *                      WorkloadSource#drawsFresh}): a level served mostly from the prefix cache is warned
     * @param warmupApart   a level's warmup sent prompts of its own ({@link LevelPrompts#warmupDrawnApart}), not
     *                      the measured ones: its records are not earlier sends of the measured prompts
     * @param sharedPrefixTokens the tokens every prompt starts with by design ({@link
     *                      WorkloadSource#sharedPrefixTokens}): cached ones do not make a level PREFIX_CACHE_REUSED
     * @param serverMetrics the server's metrics, scraped per level; null when off or not served
     * @param folder        the results folder, which says where the files went ({@link ResultsFolder#announceWritten})
     */
    record Context(LoadPlan plan, List<RequestSpec> specs, LevelWorkloads workloads, boolean drawnFresh,
                   boolean warmupApart, int sharedPrefixTokens,
                   TokenCounter tokenCounter,
                   UnaryOperator<BenchmarkRun> finishRun, MetricsConfig metricsConfig, StopControl stops,
                   PrintStream out, PrintStream err, ResultFiles files, ServerMetricsSession serverMetrics,
                   ResultsFolder folder) {
    }

    private final String model;
    private final Path dir;
    private final BenchmarkSettings baseSettings;
    private final Context cx;
    private final LoadPlan plan;
    private final HarnessListener jmh;
    private final List<LevelReport> levels = new ArrayList<>();
    private final List<Path> written = new ArrayList<>();

    private LoadSettings currentLevel;
    /** Whether the current level's requests have intended send times of their own ({@link #scheduled}). */
    private boolean levelScheduled;
    private Path levelDir;
    private RequestJournal journal;
    private volatile ProgressPrinter progress; // read by I/O threads too (onMeasuredWireEnd)
    /** The level's progress is fed as the cluster's records stream in ({@link #liveProgress}), not by the listener. */
    private boolean progressFedLive;
    private volatile boolean observerFedLive;
    private BenchmarkResult result;
    /** The current level's measured records and start, for the files of a level that dies (the listener's thread). */
    private final List<RequestRecord> levelRecords = new ArrayList<>();
    /** How many of {@link #levelRecords} the level's journal took whole: fewer when an append failed (a full disk). */
    private int levelJournaled;
    /** The workers that sent the current level (a cluster), for its summary; null from one machine. */
    private SummaryDocument.DistributedJson levelWorkers;
    private int neverSentByLostWorkers;
    private long levelStartEpochMillis;
    private long levelStartNanos;
    /** The server's side of the level being written, or null. */
    private ServerMetricsSession.LevelServerMetrics levelServer;
    /** Also told every record as it ends (a capacity search's judge), on the listener's thread. */
    private java.util.function.Consumer<ScheduledRecord> observer = record -> { };
    /** Whether a single level's files that could not be written wait for the console report ({@link #printFirst}). */
    private boolean printBeforeFilesFail;
    /** A single level's files that could not be written (a full disk), thrown by {@link #failIfFilesNotWritten}. */
    private RunFailedException filesNotWritten;

    /**
     * @param dir          this model's results folder, or null to write nothing
     * @param baseSettings the run's parameters as the user gave them (model and concurrency are set per level)
     */
    ModelRun(String model, Path dir, BenchmarkSettings baseSettings, Context context) {
        this.model = model;
        this.dir = dir;
        this.baseSettings = baseSettings;
        this.cx = context;
        this.plan = context.plan();
        this.jmh = JmhTextFormat.progress(context.out());
    }

    /**
     * Runs every level on this machine; a stop ends it early with everything recorded so far written.
     *
     * @param clients a new client for this model (one for all levels, or one per fork with iterations)
     */
    /** The client in use, whose requests waiting for headers the progress line watches ({@link #watchClient}). */
    private volatile NettyLlmClient client;

    private LlmClient watched(LlmClient created) {
        if (created instanceof NettyLlmClient netty) client = netty;
        return created;
    }

    /** Lets the progress line say a silent server: the requests of the client in use waiting for their headers. */
    private void watchClient(ProgressPrinter p) {
        NettyLlmClient c = client;
        if (p != null && c != null) p.watch(c::headerWait);
    }

    /**
     * As {@link #watchClient} for a cluster's level (or fork): the workers' requests waiting for their headers, as
     * they report them; given at the shared start, after {@link #liveProgress}.
     */
    void watchHeaderWaits(Supplier<HeaderWait> waits) {
        ProgressPrinter p = progress;
        if (p != null) p.watch(waits);
    }

    BenchmarkResult run(Supplier<LlmClient> clients) {
        Benchmark.Builder builder = Benchmark.builder()
                .name("llmperf4j.token_benchmark")
                .client(() -> watched(clients.get()))
                .workload(cx.specs())
                .workloads(cx.workloads())
                .load(plan.profile())
                .warmup(plan.warmup())
                .tokenCounter(cx.tokenCounter())
                .outputTokens(cx.metricsConfig().tokenCounting().policy())
                .saturationRules(plan.rules())
                .param("model", model)
                .listener(this);
        if (plan.harness() != null) {
            builder.harness(plan.harness());
        }
        Benchmark benchmark = builder.build();
        return runWith(listener -> {
            cx.stops().attach(benchmark);
            try {
                return benchmark.run();
            } finally {
                cx.stops().detach();
            }
        });
    }

    /**
     * As {@link #run(Supplier)}, with {@code levels} running the levels instead of a local {@link Benchmark} (a
     * distributed run's coordinator): it tells this model run about each level through the listener it is given.
     * A level that dies (a full disk under the journal, a tokenizer that threw) still writes its files from the
     * requests recorded until then; the exception thrown then says so, with the cause.
     */
    BenchmarkResult runWith(Function<BenchmarkListener, BenchmarkResult> levels) {
        try {
            result = inLevelUnit(levels.apply(this));
        } catch (RuntimeException fatal) {
            finishProgress();
            closeJournalQuietly(fatal);
            throw failedRunWritten(fatal);
        } finally {
            finishProgress();
            closeJournal();
        }
        writeModelFiles();
        return result;
    }

    /** The level that died, written from its records so far; the exception to throw instead of {@code fatal}. */
    private RunFailedException failedRunWritten(RuntimeException fatal) {
        if (cx.serverMetrics() != null) cx.serverMetrics().stopQuietly();
        if (fatal instanceof RunFailedException || fatal instanceof InvalidRequestException) {
            return fatal instanceof RunFailedException failed ? failed : new RunFailedException(fatal.getMessage(), fatal);
        }
        String cause = fatal.getMessage() == null ? fatal.getClass().getSimpleName() : fatal.getMessage();
        List<RequestRecord> recorded = List.copyOf(levelRecords);
        String ended = ended(recorded.size());
        if (levelDir == null || currentLevel == null || plan.harness() != null) {
            return new RunFailedException("the run failed after " + ended + ": " + cause, fatal);
        }
        try {
            BenchmarkRun run = cx.finishRun().apply(new BenchmarkRun(levelSettings(currentLevel, recorded), recorded,
                    levelStartEpochMillis, System.currentTimeMillis(), System.nanoTime() - levelStartNanos,
                    recorded.size(), false));
            RunMetrics metrics = metrics(run, Map.of(), List.of());
            if (printBeforeFilesFail && !plan.multiLevel() && !run.records().isEmpty()) {
                printRecorded(run, metrics); // before the files, which need the disk that may be what failed
            }
            writeLevelFiles(run, metrics, null, levelDir);
            return new RunFailedException("the run failed after " + ended(run.records().size()) + " (" + cause
                    + "); the requests recorded until then are written to " + levelDir, fatal);
        } catch (RuntimeException alsoFailed) {
            fatal.addSuppressed(alsoFailed);
            return new RunFailedException("the run failed after " + ended + " (" + cause
                    + ") and its results could not be written: " + alsoFailed.getMessage(), fatal);
        }
    }

    /**
     * How many of the level's requests ended ({@code recorded}: the console's and the files' count), and how many of
     * them its journal kept when it could not take them all (a full disk): "7 finished requests, 6 kept in
     * requests.jsonl", so the console's figure is not taken for the journal's, which {@code report DIR} reads.
     */
    private String ended(int recorded) {
        if (levelDir == null || levelJournaled >= recorded) return Plural.of(recorded, "request");
        return Plural.of(recorded, "finished request") + ", " + levelJournaled + " kept in " + RequestJournal.FILE_NAME;
    }

    /**
     * The level's server counts with what the client saw over the same span beside them (a gap that held tokens or
     * ended requests warned of with its size and the failed scrape behind it), and the counts the level's warnings
     * judge against the server's.
     */
    private ServerCountsBesideClient.Beside besideClient(ServerMetricsSession.LevelServerMetrics server,
                                                         BenchmarkRun run, List<RequestRecord> warmup) {
        ServerCountsBesideClient.Beside beside = ServerCountsBesideClient.compare(server.summary(), run, warmup,
                cx.metricsConfig().tokenCounting(), server.edgeFailure());
        // counters interpolated to the window's edges are about one interval's share off: not judged against the
        // client's counts
        return server.interpolated() ? new ServerCountsBesideClient.Beside(beside.summary(), null) : beside;
    }

    /** Tells {@code o} every record (warmup ones flagged) as it ends, after this run has kept it. */
    void observeRecords(java.util.function.Consumer<ScheduledRecord> o) {
        this.observer = o;
    }

    /**
     * The current level's (with iterations, the current fork's) progress, fed from another thread as a cluster's
     * workers stream their records (they reach the listener only once the level's or fork's run is merged): its
     * clock starts at {@code startNanos}, the shared start instant, so its elapsed time and rate are the run's; the
     * listener's records then leave it alone. A listener that ignores records when there is no progress line.
     */
    RecordListener liveProgress(long startNanos) {
        ProgressPrinter p = progress;
        // the observer (a capacity search's verdict) hears each record as it streams in, so its early stop reaches
        // the workers while they still send; told once the run is merged, it decided after every share had run
        observerFedLive = true;
        if (p != null) {
            progressFedLive = true;
            p.startClockAt(startNanos);
        }
        return new RecordListener() {
            @Override
            public void onRecord(RequestRecord record) { // the stream tells records with their send times, below
            }

            @Override
            public void onScheduledRecord(ScheduledRecord record) {
                if (p != null) p.onScheduledRecord(record);
                observer.accept(record);
            }
        };
    }

    /** The workers that sent the level about to be reported (its outcome comes next), for its summary. */
    void levelSentBy(SummaryDocument.DistributedJson workers) {
        this.levelWorkers = workers;
        neverSentByLostWorkers += LostWorkers.neverSent(workers);
    }

    /** The requests (or arrivals) of every level the load workers that left the cluster never sent. */
    int neverSentByLostWorkers() {
        return neverSentByLostWorkers;
    }

    String model() {
        return model;
    }

    /** Each level's (and harness fork's) requests for this model. */
    LevelWorkloads workloads() {
        return cx.workloads();
    }

    Path dir() {
        return dir;
    }

    List<LevelReport> levels() {
        return levels;
    }

    BenchmarkResult result() {
        return result;
    }

    /**
     * A single level whose files cannot be written (a full disk), or a sweep whose table or page cannot be at its
     * end, still ends its run and is printed, as the console report needs no disk: the caller prints this run, then
     * calls {@link #failIfFilesNotWritten}. Without this call
     * the failure ends the run at once, as before (a capacity search's probe, which prints nothing of its own).
     */
    void printFirst() {
        printBeforeFilesFail = true;
    }

    /**
     * Throws the failure to write a level's files, held for {@link #printFirst}: it names the file that could not be
     * written and those kept.
     */
    void failIfFilesNotWritten() {
        RunFailedException failed = filesNotWritten;
        if (failed == null) return;
        filesNotWritten = null;
        throw new RunFailedException(failed.getMessage() + "; the report above has the run's figures", failed);
    }

    // ---------------------------------------------------------------- listener (the benchmark's thread)

    @Override
    public void onLevelStart(int index, LoadSettings level) {
        HeapBeforeClock.collect(); // before the level's stamps and its connections
        cx.stops().levelStarted();
        currentLevel = level;
        levelScheduled = scheduled(level);
        levelRecords.clear();
        levelJournaled = 0;
        levelWorkers = null;
        progressFedLive = false;
        observerFedLive = false;
        levelServer = null; // a level that dies writes no other level's server side
        levelStartEpochMillis = System.currentTimeMillis();
        levelStartNanos = System.nanoTime();
        levelDir = dir == null ? null : plan.multiLevel() ? dir.resolve(LoadPlan.folder(level)) : dir;
        if (plan.harness() != null) {
            return; // iterations: progress per fork, no per-request files
        }
        if (cx.serverMetrics() != null) {
            cx.serverMetrics().levelStarted(levelStartNanos, level.warmup());
        }
        if (levelDir != null) {
            try {
                Files.createDirectories(levelDir);
                journal = RequestJournal.create(levelDir);
                cx.stops().journal(journal);
            } catch (IOException e) {
                throw new RunFailedException("could not write " + RequestJournal.FILE_NAME + " in " + levelDir
                        + ": " + e.getMessage(), e);
            }
        }
        progress = ProgressPrinter.forStderr(cx.err(), expected(level), progressLabel(level, ""));
        watchClient(progress);
    }

    @Override
    public void onScheduledRecord(ScheduledRecord record) {
        if (cx.serverMetrics() != null) cx.serverMetrics().recordEnded(record); // after the warmup: a scrape
        if (!record.warmup()) {
            levelRecords.add(record.record());
            if (journal != null) {
                if (levelScheduled && record.record().workerId() == null) { // sent here: its client delay known
                    journal.append(record.record(), record.startLagNanos(), record.clientDelayNanos());
                } else if (levelScheduled) { // a schedule: how late each started
                    journal.append(record.record(), record.startLagNanos());
                } else {
                    journal.append(record.record());
                }
                levelJournaled++;
            }
        }
        if (progress != null && !progressFedLive) {
            progress.onScheduledRecord(record);
        }
        if (!observerFedLive) observer.accept(record);
    }

    /** The live line learns when the window ends on the wire (any thread: the printer is thread-safe). */
    @Override
    public void onMeasuredWireEnd(long nanoTime) {
        ProgressPrinter p = progress;
        if (p != null && !progressFedLive) p.onMeasuredWireEnd(nanoTime);
    }

    /** The live line's clock starts where the summary's window does (any thread). */
    @Override
    public void onMeasureStart(long nanoTime) {
        if (cx.serverMetrics() != null && plan.harness() == null) cx.serverMetrics().measureStarted(nanoTime);
        ProgressPrinter p = progress;
        if (p != null && !progressFedLive) p.onMeasureStart(nanoTime);
    }

    @Override
    public void onSendingClosed(long nanoTime) {
        // the window is over: a scrape failing before the level's final one is said with the level's warnings
        if (cx.serverMetrics() != null && plan.harness() == null) cx.serverMetrics().sendingClosed();
        ProgressPrinter p = progress;
        if (p != null && !progressFedLive) p.onSendingClosed(nanoTime);
    }

    /** The live line stops counting the arrivals an open loop's end left unsent. */
    @Override
    public void onScheduleCut(int arrivalsNotSent, boolean timedOut) {
        ProgressPrinter p = progress;
        if (p != null && !progressFedLive) p.onScheduleCut(arrivalsNotSent, timedOut);
    }

    @Override
    public void onLevelOutcome(LevelOutcome outcome) {
        levelRecords.clear(); // the outcome holds them
        cx.stops().levelEnded(outcome.aborted()); // a stop after every request ended on the wire cut nothing
        outcome.run().ifPresent(load -> tellNotSent(load, outcome.settings()));
        finishProgress();
        closeJournal();
        String label = plan.levelLabel(outcome.settings());
        levelServer = null;
        if (outcome.run().isEmpty()) {
            if (cx.serverMetrics() != null) cx.serverMetrics().stopQuietly();
            levels.add(new LevelReport(outcome, label, null, null, null, null, levelWorkers));
            return;
        }
        LoadResult load = outcome.run().get();
        BenchmarkRun run = cx.finishRun().apply(new BenchmarkRun(levelSettings(outcome.settings(), load.records()),
                load.records(), load.startEpochMillis(), load.endEpochMillis(), load.durationNanos(), load.requestsSent(),
                load.timedOut(), load.clientOverhead()).withPreconnectNanos(load.preconnectNanos()));
        // a schedule's lags (an open loop's arrivals): goodput judges TTFT and E2E from the intended send; a turn
        // due at a time the client set (after its think time) from the actual send, its lag warned apart
        RunMetrics metrics = metrics(run, arrivalLags(load), load.warmupRecords(), serverGoneBefore(outcome));
        metrics = behindSchedule(outcome.summary(), load).map(metrics::withWarning).orElse(metrics);
        metrics = metrics.withKeptUp(keptUp(outcome.summary()));
        metrics = sentLate(load).map(metrics::withWarning).orElse(metrics);
        metrics = turnsSentLate(load).map(metrics::withWarning).orElse(metrics);
        if (cx.serverMetrics() != null) {
            // whether warmup ran, from the level's settings: a cluster's measured window starts at its first
            // worker's start, after the shared start, so its measure-start offset is not 0 even without warmup
            levelServer = cx.serverMetrics().levelEndedQuietly(model, load.startEpochMillis(),
                    load.durationNanos(), !(load.settings().warmup() instanceof Warmup.None));
            if (levelServer != null) {
                ServerCountsBesideClient.Beside beside = besideClient(levelServer, run, load.warmupRecords());
                levelServer = levelServer.withSummary(beside.summary());
                cx.serverMetrics().sayWarnings(levelServer);
                // judged from both sources: a gap between the server's counters and the client's counts, and
                // MULTI_TOKEN_CHUNKS by the server's count where the client's tokenizer is not the server's
                metrics = RunWarnings.besideServerCounts(metrics, beside.counts());
            }
        }
        if (levelDir != null) {
            try {
                writeLevelFiles(run, metrics, load, levelDir);
            } catch (RunFailedException notWritten) {
                if (!printBeforeFilesFail || plan.multiLevel() || plan.harness() != null) throw notWritten;
                filesNotWritten = notWritten; // thrown once this level is printed (failIfFilesNotWritten)
            }
        }
        levels.add(new LevelReport(outcome, label, run, metrics, levelDir,
                levelServer == null ? null : levelServer.summary(), levelWorkers));
        if (plan.multiLevel() || plan.comparison()) {
            LevelSummary s = outcome.summary();
            String cluster = LostWorkers.levelFlag(levelWorkersSoFar()); // a worker lost here, or before
            cx.err().printf(Locale.ROOT, "llmperf4j: %s done: %d/%d ok, %s output tok/s, %s req/s, TTFT p90 %s ms%s%s%n",
                    progressLabel(outcome.settings(), "") + (cluster.isEmpty() ? "" : " (" + cluster + ")"),
                    s.successes(), s.total(),
                    LoadConsole.fixed(s.outputTokensPerSecond(), 1), LoadConsole.fixed(s.requestsPerSecond(), 2),
                    LoadConsole.fixed(s.ttftP90Millis(), 1), outcome.aborted() ? " (aborted)" : "",
                    load.timedOut() ? " (timed out" + notSent(load).map(n -> ": " + n).orElse("") + ")" : "");
        }
        if (plan.multiLevel() && dir != null) {
            // rewritten after every level: a sweep killed later keeps the table of the levels it finished
            writeSweepFiles(SaturationVerdict.evaluate(levels.stream().map(LevelReport::summary).toList(),
                    levels.stream().map(l -> l.outcome().aborted()).toList(), plan.rules(), plan.levelName(),
                    plan.levelUnit()), false);
        }
    }

    @Override
    public void onRunStart(String benchmark, Map<String, String> params, LoadSettings load,
                           HarnessSettings settings) {
        jmh.onRunStart(benchmark, params, load, settings);
    }

    @Override
    public void onForkStart(int fork, int forks) {
        jmh.onForkStart(fork, forks);
        progress = ProgressPrinter.forStderr(cx.err(), 0, progressLabel(currentLevel, "fork " + fork + "/" + forks));
        watchClient(progress);
    }

    @Override
    public void onIteration(IterationResult iteration) {
        finishProgress();
        jmh.onIteration(iteration);
    }

    @Override
    public void onForkEnd(ForkResult fork) {
        finishProgress();
        jmh.onForkEnd(fork);
    }

    @Override
    public void onRunEnd(HarnessResult harnessResult) {
        finishProgress();
        jmh.onRunEnd(harnessResult);
        // iterations keep no summary to carry it: prompts found in the server's cache are said here
        RunWarnings.prefixCacheReused(harnessResult.forks().stream().map(f -> new RunWarnings.PromptSends(
                        f.load().warmupRecords(), f.load().records())).toList(), cx.drawnFresh(),
                        cx.sharedPrefixTokens())
                .ifPresent(w -> cx.out().print("Warnings:\n  " + w + "\n\n"));
    }

    /**
     * The progress line's last words on what the level's end left unsent, from its outcome: a closed loop's requests
     * ("1 request not sent: --timeout ended the run"), and an open loop's arrivals when the runner could not tell
     * the line itself (a cluster's: the coordinator feeds it records only); said once.
     */
    private void tellNotSent(LoadResult load, LoadSettings level) {
        ProgressPrinter p = progress;
        if (p == null) return;
        if (cx.stops().levelEndedEarly()) p.onLevelEndedEarly(); // a search's verdict, not the user, stopped it
        if (LostWorkers.neverSent(levelWorkers) > 0) p.onWorkerLost(); // nothing stopped it: a worker left
        if (load instanceof OpenLoopResult open && open.arrivalsNotSent() > 0) {
            p.onScheduleCut(open.arrivalsNotSent(), open.timedOut());
        } else if (load instanceof ClosedLoopResult closed && !sessions()) {
            p.onRequestsNotSent(expected(level) - closed.records().size(), closed.timedOut());
        }
    }

    private void finishProgress() {
        if (progress != null) {
            progress.finish();
            progress = null;
        }
    }

    private void closeJournal() {
        if (journal != null) {
            cx.stops().journal(null);
            try {
                journal.close();
            } catch (IOException e) {
                throw new RunFailedException("could not close " + journal.file() + ": " + e.getMessage(), e);
            } finally {
                journal = null;
            }
        }
    }

    private void closeJournalQuietly(RuntimeException fatal) {
        try {
            closeJournal();
        } catch (RuntimeException e) {
            fatal.addSuppressed(e);
        }
    }

    private String progressLabel(LoadSettings level, String extra) {
        List<String> parts = new ArrayList<>();
        if (plan.comparison()) parts.add(model);
        if (plan.multiLevel() && level != null) parts.add(plan.levelLabel(level));
        if (!extra.isEmpty()) parts.add(extra);
        return String.join(", ", parts);
    }

    private int expected(LoadSettings level) {
        // an open loop's arrivals start sessions: the requests are their turns, the request budget's when it ends
        // the level; for a time (a duration, with or without a budget) no schedule knows how many turns go out
        if (level instanceof io.llmperf4j.engine.load.OpenLoopSettings o
                && cx.specs() instanceof io.llmperf4j.engine.load.PacedWorkload p && p.multiTurn()
                && p.startOffsetsNanos() == null) {
            return o.duration().isPresent() ? 0 : o.maxRequests().orElse(0);
        }
        return LoadPlan.expectedRequests(level, cx.specs().size());
    }

    /**
     * The level's metrics, judged with {@code sendLags} (a schedule's, see {@link #scheduled}), with
     * PREFIX_CACHE_REUSED when the prompts were mostly served from the server's prefix cache: prompts drawn not to
     * share (an earlier run sent them), or the level's own repeats ({@code warmup} sent first; a workload looped).
     */
    private RunMetrics metrics(BenchmarkRun run, Map<String, Long> sendLags, List<RequestRecord> warmup) {
        return metrics(run, sendLags, warmup, null);
    }

    /** As above for a sweep's level read with its earlier levels' answer ({@code goneBefore}, null for none). */
    private RunMetrics metrics(BenchmarkRun run, Map<String, Long> sendLags, List<RequestRecord> warmup,
                               ServerGone.Earlier goneBefore) {
        // the warmup's requests still streaming when the window opens count in the delivered tokens, and only there
        RunMetrics metrics = RunMetrics.of(run, cx.metricsConfig(), sendLags, warmup, goneBefore);
        // a warmup of its own prompts sent none of the measured ones
        List<RequestRecord> earlier = cx.warmupApart() ? List.of() : warmup;
        return RunWarnings.prefixCacheReused(List.of(new RunWarnings.PromptSends(earlier, run.records())),
                cx.drawnFresh(), cx.sharedPrefixTokens(), earlierModels())
                .map(metrics::withWarning).orElse(metrics);
    }

    /** A comparison's models that ran this model's prompts before it, level by level; empty outside a comparison. */
    private List<String> earlierModels() {
        if (!plan.comparison()) return List.of();
        int at = plan.models().indexOf(model);
        return at <= 0 ? List.of() : List.copyOf(plan.models().subList(0, at));
    }

    /**
     * BEHIND_SCHEDULE when the rate sweep's rule ({@link SaturationVerdict}: the share of the offer served, with its
     * whole 95 % interval under {@code 1 − --saturation-gain}) calls this open-loop level saturated; empty for a
     * closed loop, for a level too short to tell (its open-loop block's "Kept up:" line says so), for a level only the
     * client's send lag failed ({@link io.llmperf4j.engine.load.KeepUp.Reading#CLIENT_BEHIND}: its "Kept up:" line
     * and SENT_LATE say so), for a capped level only waits for a slot at its cap failed
     * ({@link io.llmperf4j.engine.load.KeepUp.Reading#AT_CAP}: the same) and for a level the rule does not judge (too few successes: FEW_SAMPLES says so).
     */
    private Optional<RunWarning> behindSchedule(LevelSummary summary, LoadResult load) {
        if (!Double.isFinite(summary.scheduledRequestsPerSecond())) return Optional.empty();
        SaturationVerdict.LevelVerdict verdict = SaturationVerdict.evaluate(List.of(summary), plan.rules(), "rate")
                .levels().get(0);
        if (!verdict.saturated()) return Optional.empty(); // behind with 95 % confidence, not "too short to tell"
        double sent = load instanceof OpenLoopResult open ? open.summary().achievedSendRequestsPerSecond()
                : Double.NaN;
        return Optional.of(RunWarnings.behindSchedule(verdict.achievedShare(), verdict.shareLow(),
                verdict.shareHigh(), summary.scheduledRequestsPerSecond(), sent, 1 - plan.rules().minThroughputGain(),
                SaturationVerdict.failedArrivals(summary.keepUp()).orElse(null)));
    }

    /**
     * The summary's {@code kept_up}: the open loop's verdict on its offer as its "Kept up:" line reads it (the rate
     * sweep's rule on this level alone), in the sweep file's words; null where no line is printed.
     */
    private String keptUp(LevelSummary summary) {
        if (!Double.isFinite(summary.scheduledRequestsPerSecond())) return null;
        return LoadFiles.keptUp(SaturationVerdict.evaluate(List.of(summary), plan.rules(), "rate").levels().get(0)
                .keptUp());
    }

    /**
     * {@code r} with its sweep verdict naming a rate level in the plan's unit: the engine's names it "rate 2 req/s",
     * while a sweep of sessions offers sessions/s ({@link LoadPlan#levelUnit}), as its table, its files' {@code
     * load_unit} and labels say. The same levels and rules, judged again: only the words of its warnings change.
     */
    private BenchmarkResult inLevelUnit(BenchmarkResult r) {
        if (r == null || r.verdict() == null || !plan.multiLevel() || plan.levelUnit().equals(plan.loadUnit())) {
            return r;
        }
        SaturationVerdict named = SaturationVerdict.evaluate(r.levels().stream().map(LevelOutcome::summary).toList(),
                r.levels().stream().map(LevelOutcome::aborted).toList(), plan.rules(), plan.levelName(),
                plan.levelUnit());
        return new BenchmarkResult(r.name(), r.profile(), r.levels(), named, r.stopped());
    }

    /**
     * A sweep's level read with the levels before it, once, for its warning, its summary's errors and its page: when
     * an earlier level was answered and the sweep's verdict reads this one's refused connections as the server gone
     * since then ({@link SaturationVerdict#goneBefore}), the earlier answer and the verdict's words; null otherwise
     * (a single run's level is read alone).
     */
    private ServerGone.Earlier serverGoneBefore(LevelOutcome outcome) {
        if (!plan.multiLevel() || levels.isEmpty()) return null;
        long served = FailureCause.NEVER_SERVED;
        for (LevelReport l : levels) {
            if (l.run() != null) served = Math.min(served, FailureCause.servedSince(l.run().records()));
        }
        if (served == FailureCause.NEVER_SERVED) return null;
        long servedBefore = served;
        List<LevelSummary> summaries = new ArrayList<>(levels.stream().map(LevelReport::summary).toList());
        summaries.add(outcome.summary());
        List<Boolean> aborted = new ArrayList<>(levels.stream().map(l -> l.outcome().aborted()).toList());
        aborted.add(outcome.aborted());
        return SaturationVerdict.evaluate(summaries, aborted, plan.rules(), plan.levelName(), plan.levelUnit())
                .goneBefore(summaries.size() - 1, plan.levelName(), plan.levelUnit())
                .map(words -> new ServerGone.Earlier(servedBefore, words)).orElse(null);
    }

    /** An open loop's arrivals that were not sent, and why ({@link ScheduleTimeout#notSent}); empty when all were. */
    private static Optional<String> notSent(LoadResult load) {
        return load instanceof OpenLoopResult open ? Optional.ofNullable(ScheduleTimeout.notSent(open, "level"))
                : Optional.empty();
    }

    /**
     * SENT_LATE when an open loop's measured arrivals went out late ({@link RunWarnings#sentLate}): judged on the
     * send lag itself, which BEHIND_SCHEDULE's completion rate misses when a late pacer catches up in bursts.
     */
    private Optional<RunWarning> sentLate(LoadResult load) {
        if (!(load instanceof OpenLoopResult open)) return Optional.empty();
        long[] lags = open.measuredTimeline().stream().filter(r -> arrival(load, r))
                .mapToLong(ScheduledRecord::sendLagNanos).toArray();
        return RunWarnings.sentLate(lags, open.settings().requestsPerSecond(),
                open.settings().maxConcurrency().orElse(0), sessions());
    }

    /**
     * TURNS_SENT_LATE: the send lags of sessions' turns due at a time the client set ({@link #arrival}), the sends
     * SENT_LATE does not judge: the two warnings share one rule over disjoint sends, and differ in what the lag does to
     * the latencies (in them from the intended send; not in them from the actual send).
     */
    private Optional<RunWarning> turnsSentLate(LoadResult load) {
        if (!sessions()) return Optional.empty();
        long[] lags = load.measuredTimeline().stream().filter(r -> !arrival(load, r))
                .mapToLong(ScheduledRecord::sendLagNanos).toArray();
        int cap = load.settings() instanceof OpenLoopSettings open ? open.maxConcurrency().orElse(0) : 0;
        return RunWarnings.turnsSentLate(lags, cap);
    }

    /**
     * Whether {@code r} was due at its schedule's instant (an open loop's arrival: a request, or a session's first
     * turn), not at a time the client set itself (a later turn, due at the previous reply's end plus its think time;
     * a failed session's rest, whose turns keep their places, so its first is no turn 0; a closed loop's next session,
     * due when its slot freed), where the lag is the client's and goodput judges from
     * the actual send, as the capacity search does an uncapped open loop's client lag (ClientLagJudge).
     */
    private boolean arrival(LoadResult load, ScheduledRecord r) {
        return ScheduleLag.dueAtTheSchedule(load instanceof OpenLoopResult, r.record());
    }

    /**
     * The send lags goodput and the SLO verdict judge: the arrivals' ({@link #arrival}), by client request id; to the
     * start stamp, as they are added to TTFT, which holds the client's delay after it.
     */
    private Map<String, Long> arrivalLags(LoadResult load) {
        Map<String, Long> lags = new HashMap<>();
        if (load == null || !scheduled(load.settings())) return lags;
        for (ScheduledRecord r : load.measuredTimeline()) {
            if (arrival(load, r)) lags.put(r.record().clientRequestId(), r.startLagNanos());
        }
        return lags;
    }

    // ---------------------------------------------------------------- files

    /**
     * The parameters of one level, as echoed into its files: this model, the level's concurrency (see
     * {@link PeakInFlight}: an uncapped open loop's is measured from {@code records}) and load.
     */
    private BenchmarkSettings levelSettings(LoadSettings level, List<RequestRecord> records) {
        BenchmarkSettings s = baseSettings;
        int concurrency = PeakInFlight.concurrency(level, records, s.numConcurrentRequests());
        Map<String, String> metadata = new LinkedHashMap<>(s.metadata());
        String load = (level instanceof OpenLoopSettings t && t.arrival() instanceof Arrival.Trace ? plan.describe()
                : level.describe()) + (level instanceof OpenLoopSettings o && !(o.arrival() instanceof Arrival.Trace)
                ? ", seed " + o.seed() : "");
        if (plan.active()) { // llmperf's plain closed loop echoes llmperf's parameters only
            metadata.putIfAbsent("llmperf4j_load", load);
        }
        if (!(level.warmup() instanceof Warmup.None)) {
            metadata.putIfAbsent("llmperf4j_warmup", plan.warmupText() + ", excluded from every result");
        }
        return s.toBuilder().model(model).numConcurrentRequests(concurrency).metadata(metadata).build();
    }

    private String base() {
        return LlmperfFileNames.baseName(levelSettings(plan.profile().levels(Warmup.NONE).get(0), List.of()));
    }

    private void writeLevelFiles(BenchmarkRun run, RunMetrics metrics, LoadResult load, Path into) {
        try {
            LevelOutput output = new LevelOutput(run, metrics, ToolVersion.version(), RunEnvironment.current(),
                    levelWorkers, load instanceof OpenLoopResult open ? LoadFiles.openLoop(model, open,
                    plan.warmupText(), sessions()) : null, levelServer == null ? null : levelServer.summary(),
                    levelServer == null ? null : levelServer.timeline(), sendLags(load), cx.stops().levelStoppedBy(),
                    sessions() ? load.turnsNotSent() : null, clientDelays(load));
            List<String> names = cx.files().write(output, into).stream().map(p -> p.getFileName().toString())
                    .toList();
            if (!plan.multiLevel()) {
                cx.folder().announceWritten(cx.err(), into, String.join(", ", names));
            }
        } catch (IOException e) {
            throw new RunFailedException("could not write results to " + into + ": " + why(e), e);
        }
    }

    /**
     * Why files could not be written: a {@link ResultsNotWrittenException}'s own words ("could not write X (No space
     * left on device); kept whole: ..."), else the exception as it always read.
     */
    static String why(IOException e) {
        return e instanceof ResultsNotWrittenException ? e.getMessage() : e.toString();
    }

    /**
     * The console report of a level that died (a full disk under its journal): the figures of the requests it
     * recorded, as a finished level prints them, ending with llmperf's block.
     */
    private void printRecorded(BenchmarkRun run, RunMetrics metrics) {
        PrintStream out = cx.out();
        if (plan.comparison()) out.println("== " + model + " ==");
        out.print(SummaryConsoleReport.render(run, metrics));
        if (!plan.comparison()) {
            out.println();
            out.print(LlmperfConsoleReport.render(run));
        }
        out.flush();
    }

    /**
     * Whether {@code level}'s requests have intended send times of their own, so that how late each went out (its
     * send lag) is a figure of the run, written to the journal and the CSV and counted in goodput and the SLO verdict
     * ("from the intended send"): an open loop's (its schedule's arrivals, a trace's timestamps) and multi-turn
     * sessions' in a closed loop too (a turn is due when the previous turn of its session ended plus its think time,
     * a session's first turn when its slot freed). A plain closed loop sends the moment a slot frees: no lag.
     */
    private boolean scheduled(LoadSettings level) {
        return level instanceof OpenLoopSettings || sessions();
    }

    /** Whether the requests are multi-turn sessions (or a trace's), paced by their own workload. */
    private boolean sessions() {
        return cx.specs() instanceof PacedWorkload;
    }

    /**
     * A schedule's send lag of each measured request ({@link #scheduled}), by client request id, for the per-request
     * CSV and goodput: the same levels and values as the journal's ({@link #onScheduledRecord}). To the start stamp
     * ({@link ScheduledRecord#startLagNanos}), so that with TTFT it adds up to TTFT from the intended send; the
     * console's send lag and SENT_LATE count the client's delay after it too.
     */
    private Map<String, Long> sendLags(LoadResult load) {
        if (load == null || !scheduled(load.settings())) return Map.of();
        Map<String, Long> lags = new HashMap<>();
        for (ScheduledRecord r : load.measuredTimeline()) lags.put(r.record().clientRequestId(), r.startLagNanos());
        return lags;
    }

    /**
     * The client's own delay after the send stamp of each measured request of a schedule that this machine sent
     * ({@link ScheduledRecord#clientDelayNanos}), by client request id, for the per-request CSV as the journal has it
     * ({@link #onScheduledRecord}): with {@link #sendLags} it adds up to the console's send lag. A load worker's
     * requests carry none (their lags count to the send stamp), so they are left out.
     */
    private Map<String, Long> clientDelays(LoadResult load) {
        if (load == null || !scheduled(load.settings())) return Map.of();
        Map<String, Long> delays = new HashMap<>();
        for (ScheduledRecord r : load.measuredTimeline()) {
            if (r.record().workerId() == null) delays.put(r.record().clientRequestId(), r.clientDelayNanos());
        }
        return delays;
    }

    /**
     * Writes the model's own files (a sweep's table and page, iterations' files); with {@link #printFirst}, a failure
     * to write them is held until the run is printed, as a level's is, so the console's figures come first.
     */
    private void writeModelFiles() {
        try {
            writeModelFilesNow();
        } catch (RunFailedException notWritten) {
            if (!printBeforeFilesFail) throw notWritten;
            if (filesNotWritten == null) filesNotWritten = notWritten; // thrown by failIfFilesNotWritten
        }
    }

    private void writeModelFilesNow() {
        if (dir == null) {
            return;
        }
        try {
            String base = base();
            if (plan.multiLevel()) {
                written.addAll(writeSweepFiles(result.verdict(), result.stopped()));
                if (levels.stream().anyMatch(l -> l.run() != null)) {
                    // the sweep's page is read back from the files just written, as `report DIR` builds it
                    written.add(HtmlReport.fromResultsDir(dir.resolve(base + SweepFiles.JSON_SUFFIX)));
                }
            }
            if (plan.harness() != null) {
                written.addAll(WholeFiles.write(dir, into -> {
                    Path json = into.resolve(base + "_jmh.json");
                    JmhJsonFormat.write(withSettings(result.harnessResults()), json);
                    return List.of(json, LoadFiles.writeIterations(into, base, plan.loadUnit(),
                            result.harnessResults()));
                }));
            }
            if (!written.isEmpty()) {
                List<String> names = new ArrayList<>(written.stream().map(p -> p.getFileName().toString()).toList());
                if (plan.multiLevel() && plan.harness() == null) {
                    names.add("a folder per level (" + String.join(", ", levels.stream()
                            .map(l -> LoadPlan.folder(l.outcome().settings())).toList()) + ")");
                }
                cx.folder().announceWritten(cx.err(), dir, String.join(", ", names));
            }
        } catch (IOException e) {
            // the files written whole before the one that failed (the sweep's table before its page) are named too
            IOException named = e instanceof ResultsNotWrittenException r ? r.keptAfter(written) : e;
            throw new RunFailedException("could not write results to " + dir + ": " + why(named), e);
        }
    }

    /**
     * The results with the run's settings added to their params ({@link JmhFile#settingsParams}: endpoint, API,
     * tokenizer, prompts, sampling, token shape), for {@code <base>_jmh.json} alone: iterations keep no summary to
     * record them, and the console's table keeps its load and model columns.
     */
    private List<HarnessResult> withSettings(List<HarnessResult> results) {
        Map<String, String> settings = JmhFile.settingsParams(baseSettings);
        return results.stream().map(r -> {
            Map<String, String> params = new LinkedHashMap<>(r.params());
            settings.forEach(params::putIfAbsent);
            return new HarnessResult(r.benchmark(), params, r.settings(), r.load(), r.forks(), r.aborted());
        }).toList();
    }

    private List<Path> writeSweepFiles(SaturationVerdict verdict, boolean stopped) {
        List<LoadFiles.SweepRow> rows = levels.stream().map(l -> new LoadFiles.SweepRow(l.outcome().settings(),
                l.summary(), l.outcome().aborted(), l.dir() == null ? null : dir.relativize(l.dir()).toString(),
                SloVerdicts.of(l), l.metrics() == null ? null : l.metrics().warnings(),
                l.metrics() == null ? null : l.metrics().goodput().orElse(null), l.server())).toList();
        try {
            // rewritten after every level: whole or the previous level's, never cut (WholeFiles.write)
            return WholeFiles.write(dir, into -> LoadFiles.writeSweep(into, base(), model, plan, rows, verdict,
                    stopped, SloVerdicts.objectives(cx.metricsConfig())));
        } catch (IOException e) {
            throw new RunFailedException("could not write the sweep files in " + dir + ": " + why(e), e);
        }
    }

    // ---------------------------------------------------------------- stdout

    /**
     * This model's report. A single level without comparison prints as llmperf4j's plain run does, ending with
     * llmperf's block; a sweep prints its table and verdict; iterations print JMH's summary table.
     */
    void print(PrintStream out) {
        if (plan.comparison()) {
            out.println("== " + model + " ==");
        }
        printWarmup(out);
        if (plan.harness() != null) {
            if (!plan.comparison()) {
                out.print(JmhTextFormat.summaryTable(result.harnessResults()));
            }
            if (plan.multiLevel()) {
                out.println();
                printSweep(out);
            }
        } else if (plan.multiLevel()) {
            printSweep(out);
        } else if (!levels.isEmpty()) {
            LevelReport level = levels.get(0);
            level.outcome().run().filter(OpenLoopResult.class::isInstance).map(OpenLoopResult.class::cast)
                    .ifPresent(open -> out.print(LoadConsole.openLoop(open, sessions(),
                            SaturationVerdict.keptUpLine(level.summary(), plan.rules()).orElse(null)) + "\n"));
            level.outcome().run().filter(ClosedLoopResult.class::isInstance).map(ClosedLoopResult.class::cast)
                    .ifPresent(closed -> out.print(LoadConsole.closedLoopSessions(closed, sessions())));
            int concurrency = level.run().settings().numConcurrentRequests();
            out.print(SummaryConsoleReport.render(level.run(), level.metrics(), PeakInFlight.label(
                    level.outcome().settings(), concurrency) + (level.outcome().settings() instanceof ClosedLoopSettings
                    ? LostWorkers.concurrencyAfter(levelWorkers, concurrency, level.run().records()) : ""),
                    level.server()));
            LostWorkers.notSentLine(levelWorkers, level.run().records().size(),
                    level.outcome().settings() instanceof OpenLoopSettings ? "arrival" : "request")
                    .ifPresent(out::println);
            if (level.server() != null) {
                out.println(ServerMetricsConsole.line(level.server(), level.metrics().outputTokensPerSecond(),
                        level.metrics().deliveredIn(level.run()).tokensPerSecond()));
            }
            if (!plan.comparison()) {
                out.println();
                out.print(LlmperfConsoleReport.render(level.run())); // its first line says when the run timed out
            }
        }
        if (plan.comparison()) {
            out.println();
        }
        out.flush();
    }

    private void printWarmup(PrintStream out) {
        if (plan.warmup() instanceof Warmup.None) {
            return;
        }
        int ran = 0;
        for (LevelReport l : levels) {
            ran += l.outcome().run().map(r -> r.warmupRecords().size()).orElse(0);
        }
        out.println("Warmup: " + plan.warmupText() + (plan.multiLevel() ? " at the start of each level" : "")
                + ", sent first and excluded from every result below and every file ("
                + warmupRan(ran).orElse(ran + " warmup " + (ran == 1 ? "request" : "requests") + " ran") + ").");
    }

    /**
     * How many warmup requests ran when a load worker left the cluster mid-run (one level): its warmup records, which
     * come only with a worker's outcome, left with it, so the records count only the others'. Said per worker; a
     * worker that had sent a measured request (one it recorded or lost) had sent its whole share of a warmup by
     * requests first, so the cluster's count is known then. Empty when every worker reported.
     */
    private Optional<String> warmupRan(int reported) {
        SummaryDocument.DistributedJson workers = levelWorkers;
        if (plan.multiLevel() || plan.harness() != null || levels.isEmpty() || workers == null
                || workers.workers().stream().allMatch(w -> w.left() == null)) {
            return Optional.empty();
        }
        Map<String, Integer> byWorker = new HashMap<>();
        levels.get(0).outcome().run().ifPresent(r -> r.warmupRecords().forEach(rec -> byWorker.merge(
                String.valueOf(rec.workerId()), 1, Integer::sum)));
        int[] shares = plan.warmup() instanceof Warmup.ForRequests w
                ? io.llmperf4j.distributed.WorkloadSplit.evenly(w.count(), workers.workers().size()) : null;
        int total = reported;
        boolean known = true;
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < workers.workers().size(); i++) {
            SummaryDocument.WorkerJson w = workers.workers().get(i);
            if (w.left() == null) {
                parts.add(byWorker.getOrDefault(w.id(), 0) + " on " + w.id());
            } else if (shares != null && w.requestsRecorded() > 0) {
                total += shares[i];
                parts.add(shares[i] + " on " + w.id() + ", which left the cluster mid-run after them (its warmup "
                        + "records left with it)");
            } else {
                known = false;
                parts.add("an unknown number" + (shares == null ? "" : " (of its " + shares[i] + ")") + " on "
                        + w.id() + ", which left the cluster mid-run before its first "
                        + "measured request (its warmup records left with it)");
            }
        }
        return Optional.of((known ? "" : "at least ") + total + " warmup " + (total == 1 ? "request" : "requests")
                + " ran: " + String.join("; ", parts));
    }

    /** The cluster of each level reported so far, this one last (null entries without a cluster). */
    private List<SummaryDocument.DistributedJson> levelWorkersSoFar() {
        return levels.stream().map(LevelReport::workers).toList();
    }

    /** A sweep's lines on the levels where a load worker left the cluster: what each lost (LostWorkers). */
    private List<String> lostWorkerLines() {
        List<String> concurrencyAfter = levels.stream().map(l -> l.run() != null
                && l.outcome().settings() instanceof ClosedLoopSettings c
                ? LostWorkers.concurrencyAfter(l.workers(), c.concurrency(), l.run().records()) : "").toList();
        return LostWorkers.sweepLines(levels.stream().map(LevelReport::label).toList(), levelWorkersSoFar(),
                concurrencyAfter, levels.stream().map(l -> l.run() == null ? 0 : l.run().records().size()).toList(),
                plan.kind().open() ? "arrival" : "request");
    }

    private void printSweep(PrintStream out) {
        SaturationVerdict v = result.verdict();
        out.println("Sweep of " + model + ": " + plan.describe());
        List<LoadConsole.Row> rows = new ArrayList<>();
        List<SummaryDocument.DistributedJson> clusterSoFar = new ArrayList<>();
        for (int i = 0; i < levels.size(); i++) {
            LevelReport l = levels.get(i);
            String flags = LoadConsole.flags(v, i, l.summary());
            if (l.run() != null && l.run().timedOut()) flags = flags.isEmpty() ? "timed out" : flags + ", timed out";
            clusterSoFar.add(l.workers());
            String cluster = LostWorkers.levelFlag(clusterSoFar); // "worker X lost", "without worker X"
            if (!cluster.isEmpty()) flags = flags.isEmpty() ? cluster : flags + ", " + cluster;
            rows.add(new LoadConsole.Row(LoadSettings.formatLevel(l.summary().level()), l.summary(),
                    l.outcome().aborted(), flags, SloVerdicts.cell(l),
                    l.metrics() == null ? null : l.metrics().goodput().orElse(null))); // the sweep files' goodput
        }
        out.print(LoadConsole.levelTable(plan.kind().open() ? "rate (" + plan.levelUnit() + ")" : "concurrency", rows));
        if (plan.kind().open()) {
            out.println("(TTFT and E2E from the intended send: waiting behind the cap and the pacer included)");
        } else if (sessions()) {
            out.println("(TTFT and E2E from the intended send: a session turn sent after its think time had passed "
                    + "counts from when it was due)");
        }
        for (String line : v.describe(plan.levelName(), plan.levelUnit())) {
            out.println(line);
        }
        // one line per code
        LevelWarnings.sweep(levels, v, plan.levelUnit()).forEach(w -> out.println("warning: " + w));
        SloVerdicts.sweepLines(plan, cx.metricsConfig(), levels).forEach(out::println);
        for (LevelReport l : levels) {
            if (l.outcome().aborted()) {
                out.printf(Locale.ROOT, "aborted: %s (stopped by a signal: Ctrl-C or SIGTERM): %d of %d requests failed or were cancelled (%.1f %%)%n",
                        l.label(), l.summary().failures(), l.summary().total(), 100 * l.summary().failureRate());
            }
        }
        for (LevelReport l : levels) { // each level's server side, as a single level's run prints it
            if (l.server() == null || l.metrics() == null || l.run() == null) continue;
            out.println(l.label() + ": " + ServerMetricsConsole.line(l.server(), l.metrics().outputTokensPerSecond(),
                    l.metrics().deliveredIn(l.run()).tokensPerSecond()));
        }
        lostWorkerLines().forEach(out::println);
        for (LevelReport l : levels) { // a level its --timeout ended: how much of its load it never offered
            if (l.run() == null || !l.run().timedOut()) continue;
            Optional<String> notSent = l.outcome().run().flatMap(ModelRun::notSent);
            out.println("timed out: " + l.label() + ": " + notSent.orElse("its --timeout ended it; the requests "
                    + "then in flight were cancelled"));
        }
        if (result.stopped()) {
            out.println("stopped: the sweep was stopped before its last level");
        }
    }
}
