package io.llmperf4j.cli;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.ClientSpec;
import io.llmperf4j.distributed.ClockOffset;
import io.llmperf4j.distributed.Coordinator;
import io.llmperf4j.distributed.DistributedPlan;
import io.llmperf4j.distributed.MergedRun;
import io.llmperf4j.distributed.WorkerReport;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.html.HtmlReportOptions;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.llmperf.LlmperfConsoleReport;
import io.llmperf4j.report.llmperf.LlmperfResultFiles;
import io.llmperf4j.report.llmperf.LlmperfResultWriter;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryConsoleReport;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * token-benchmark with {@code --cluster}: this process coordinates, the workers send. It waits for the workers,
 * estimates their clock offsets, has each check the endpoint, hands out the shares of llmperf's closed loop with one
 * shared start instant, then reports and writes the merged run exactly as a single machine would (llmperf's files,
 * CSV with a worker column, requests.jsonl, llmperf4j's summary with the workers and their clock offsets, HTML
 * report). An open loop, a sweep or iterations run level by level, each level (or harness fork) a distributed run
 * ({@link DistributedLevels}), through the same {@link ModelRun} as on one machine.
 */
final class DistributedTokenBenchmark {
    private final TokenBenchmark benchmark;
    private final TokenBenchmarkOptions options;
    private final CommonOptions common;
    private final LoadPlan load;
    private final ClusterFlags.ClusterOptions cluster;
    private final PrintStream out;
    private final PrintStream err;

    DistributedTokenBenchmark(TokenBenchmark benchmark, TokenBenchmarkOptions options, LoadPlan load,
                              ClusterFlags.ClusterOptions cluster, PrintStream out, PrintStream err) {
        this.benchmark = benchmark;
        this.options = options;
        this.common = options.common();
        this.load = load;
        this.cluster = cluster;
        this.out = out;
        this.err = err;
    }

    /** What a distributed run does not do, as usage errors before anything starts. */
    static void checkSupported(TokenBenchmarkOptions options, LoadPlan plan) {
        CommonOptions common = options.common();
        if (!io.llmperf4j.distributed.ClientSpec.supports(common.llmApi())) {
            throw new UsageException("--cluster: --llm-api " + common.llmApi() + " is not distributed; use "
                    + String.join(", ", io.llmperf4j.engine.client.ApiRegistry.distributableNames()));
        }
    }

    int run(WorkloadSource workload) {
        LlmApi api = common.api(options.stream(), null);
        MergedRun merged;
        BenchmarkSettings settings;
        String coordinatorAddress;
        try (EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(),
                EndpointUnderTest.ESTIMATED_PROMPT_TOKENS, err);
             Coordinator coordinator = Coordinator.start(cluster.settings(),
                     line -> err.println("llmperf4j: cluster: " + line))) {
            URI uri = endpoint.uri(api);
            coordinatorAddress = coordinator.address();
            err.println("llmperf4j: coordinator " + coordinatorAddress + " of cluster '"
                    + cluster.settings().clusterName() + "': waiting for " + cluster.workers() + " worker"
                    + (cluster.workers() == 1 ? "" : "s") + " (at most " + cluster.workerWait().toSeconds() + " s)");
            List<Member> workers = coordinator.awaitWorkers(cluster.workers(), cluster.workerWait());
            Map<String, ClockOffset> clocks = coordinator.measureClocks(workers);
            clocks.forEach((id, c) -> err.printf(Locale.ROOT,
                    "llmperf4j: cluster: worker %s clock offset %+.3f ms (round trip %.3f ms)%n", id,
                    c.offsetMillis(), c.roundTripMillis()));
            coordinator.checkReachable(workers, uri);
            ClientSpec client = clientSpec(uri);
            BenchmarkSettings base = benchmark.settings(uri.toString(), workload);
            if (load.active()) {
                return loadRun(load.seededBy(base.seed()), coordinator, workers, clocks, client, base, workload);
            }
            DistributedPlan distributed = DistributedPlan.closedLoop(client, workload.requests(),
                    common.numConcurrentRequests(), Duration.ofSeconds(common.timeoutSeconds()));
            settings = base;
            try (InterruptHandler ignored = InterruptHandler.install(coordinator::stop, err)) {
                merged = coordinator.run(distributed, workers, clocks, TokenBenchmark.outputCounter(workload));
            }
        }
        BenchmarkRun run = TokenBenchmark.withServerCounts(new BenchmarkRun(settings, merged.records(),
                merged.startEpochMillis(), merged.endEpochMillis(), merged.durationNanos(), merged.requestsSent(),
                merged.timedOut(), merged.clientOverhead()), workload);
        RunMetrics metrics = benchmark.metrics(run, workload, workload.promptTokenizer());
        printWorkers(merged);
        out.print(SummaryConsoleReport.render(run, metrics));
        out.println();
        out.print(LlmperfConsoleReport.render(run));
        out.flush();
        writeFiles(run, metrics, merged, coordinatorAddress);
        return merged.stopped() ? ExitCodes.INTERRUPTED : ExitCodes.OK;
    }

    /**
     * An open loop, a sweep, iterations or several models: each level a distributed run (with iterations, each fork
     * of a level), reported through a {@link ModelRun} per model as a local load run is, so its console report and
     * files (open-loop figures; level folders, sweep files and verdict; JMH files and iteration CSV; the comparison)
     * are the same; each level's summary then gains the workers. Ctrl-C is staged as on one machine
     * ({@link StopControl}).
     */
    private int loadRun(LoadPlan plan, Coordinator coordinator, List<Member> workers, Map<String, ClockOffset> clocks,
                      ClientSpec client, BenchmarkSettings base, WorkloadSource workload) {
        err.println("llmperf4j: load: " + plan.describe() + ", over " + (plan.multiLevel() ? "at most " : "")
                + workers.size() + " workers");
        int clientSpecialTokens = workload.countFromUsage() ? 0 : workload.promptTokenizer().count("");
        MetricsConfig metricsConfig = new MetricsConfig(new TokenCounting(clientSpecialTokens, true), options.slo());
        TokenCounter counter = TokenBenchmark.outputCounter(workload);
        StopControl stops = new StopControl(err, plan.multiLevel() || plan.comparison());
        ModelRun.Context context = new ModelRun.Context(plan, workload.requests(), counter,
                run -> TokenBenchmark.withServerCounts(run, workload), metricsConfig, stops, out, err,
                options.saveEvents());
        List<ModelRun> runs = new ArrayList<>();
        try (InterruptHandler ignored = InterruptHandler.installStaged(stops)) {
            for (int i = 0; i < plan.models().size(); i++) {
                if (!stops.mayStartModel(i, plan.pause())) break;
                String model = plan.models().get(i);
                ModelRun modelRun = new ModelRun(model, ModelComparison.modelDir(common.resultsDir(), plan, model),
                        () -> {
                            throw new IllegalStateException("a distributed load run sends from the workers");
                        }, base, context);
                String coordinatorAddress = coordinator.address();
                DistributedLevels levels = new DistributedLevels(plan, coordinator, workers, clocks,
                        client.withModel(model), workload.requests(), counter,
                        ModelRun.outputTokens(metricsConfig.tokenCounting()), model, (index, merged) -> {
                            printWorkers(merged);
                            writeLevelSummary(modelRun.levels().get(index), merged, coordinatorAddress);
                        }, this::printWorkers);
                stops.attach(levels::stopLevel, levels::stopAll);
                try {
                    modelRun.runWith(levels);
                } finally {
                    stops.detach();
                }
                runs.add(modelRun);
                modelRun.print(out);
            }
        }
        if (plan.comparison()) {
            ModelComparison.print(runs, plan, common.resultsDir(), out, err);
        }
        return stops.interrupted() ? ExitCodes.INTERRUPTED : ExitCodes.OK;
    }

    /** A level's summary, written again with the workers (the model run wrote it without them). */
    private void writeLevelSummary(ModelRun.LevelReport level, MergedRun merged, String coordinatorAddress) {
        if (level.dir() == null || level.run() == null) return;
        try {
            SummaryJson.write(level.run(), level.metrics(), VersionProvider.version(), RunEnvironment.current(),
                    distributedJson(merged, coordinatorAddress), level.dir());
        } catch (IOException e) {
            throw new RunFailedException("could not write the summary in " + level.dir() + ": " + e, e);
        }
    }

    private void printWorkers(MergedRun merged) {
        for (WorkerReport w : merged.workers()) {
            ClientOverhead c = w.clientOverhead();
            err.printf(Locale.ROOT, "llmperf4j: cluster: worker %s: %d requests, %d ok%s%s%n", w.workerId(),
                    w.recorded(), w.succeeded(), w.lost() == 0 ? "" : ", " + w.lost() + " lost (" + w.leftReason() + ")",
                    c == null ? "" : String.format(Locale.ROOT, "; its client: event-loop lag p99 %.2f ms, CPU %.0f %%",
                            c.lagP99Nanos() / 1e6, 100 * c.processCpuShare()));
        }
    }

    /** The client each worker builds; its own API key is added there, and {@code --ca-cert} goes as text. */
    private ClientSpec clientSpec(URI uri) {
        Map<String, Object> params = new LinkedHashMap<>(common.additionalSamplingParams());
        String pem;
        try {
            pem = common.caCert() == null ? null : Files.readString(common.caCert(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UsageException("--ca-cert: cannot read " + common.caCert() + ": " + e.getMessage());
        }
        return new ClientSpec(uri, common.llmApi(), options.stream(), common.model(), params, options.includeUsage(),
                common.numConcurrentRequests(), common.idleTimeout().toMillis(),
                common.requestTimeout() == null ? null : common.requestTimeout().toMillis(),
                common.connectTimeout().toMillis(), new LinkedHashMap<>(common.extraHeaders()), common.insecureTls(),
                pem);
    }

    private SummaryDocument.DistributedJson distributedJson(MergedRun merged, String coordinator) {
        List<SummaryDocument.WorkerJson> workers = new ArrayList<>();
        for (WorkerReport w : merged.workers()) {
            ClockOffset c = w.clockOffset();
            workers.add(new SummaryDocument.WorkerJson(w.workerId(), w.share(), w.assigned(), w.recorded(),
                    w.succeeded(), w.lost(), c == null ? null : c.offsetMillis(), c == null ? null : c.roundTripMillis(),
                    w.startLagNanos() < 0 ? null : w.startLagNanos() / 1e6, w.leftReason()));
        }
        return new SummaryDocument.DistributedJson(cluster.settings().clusterName(), coordinator, workers);
    }

    private void writeFiles(BenchmarkRun run, RunMetrics metrics, MergedRun merged, String coordinator) {
        Path dir = common.resultsDir();
        if (dir == null) {
            return;
        }
        try {
            LlmperfResultFiles files = LlmperfResultWriter.write(run, dir);
            RunEnvironment environment = RunEnvironment.current();
            Path summary = SummaryJson.write(run, metrics, VersionProvider.version(), environment,
                    distributedJson(merged, coordinator), dir);
            try (RequestJournal journal = RequestJournal.create(dir)) {
                for (RequestRecord record : run.records()) {
                    journal.append(record);
                }
            }
            List<String> names = new ArrayList<>(List.of(files.summaryJson().getFileName().toString(),
                    files.individualResponsesJson().getFileName().toString(),
                    files.requestsCsv().getFileName().toString(), summary.getFileName().toString(),
                    RequestJournal.FILE_NAME));
            names.add(HtmlReport.write(run, metrics, VersionProvider.version(), environment,
                    HtmlReportOptions.DEFAULT, dir).getFileName().toString());
            err.println("Results written to " + dir.toAbsolutePath() + ": " + String.join(", ", names));
        } catch (IOException e) {
            throw new RunFailedException("could not write results to " + dir + ": " + e, e);
        }
    }
}
