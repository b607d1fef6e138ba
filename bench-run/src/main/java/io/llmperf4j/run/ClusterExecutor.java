package io.llmperf4j.run;

import io.llmperf4j.report.summary.Plural;
import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.ClientSpec;
import io.llmperf4j.distributed.ClockOffset;
import io.llmperf4j.distributed.Coordinator;
import io.llmperf4j.distributed.MergedRun;
import io.llmperf4j.distributed.WorkerReport;
import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.summary.SummaryDocument;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The levels run by the workers of a cluster; this process coordinates. Opening waits for the workers, estimates
 * their clock offsets and has each check the endpoint (a connect, then, for a remote endpoint, the pre-run request
 * with its own key: {@link Preflight#checkWorkers}); each level (or harness fork) is then one distributed run with
 * a shared start instant ({@link DistributedLevels}), reported to the same {@link ModelRun} as on one machine, so
 * the console report and every file are the same; each level's summary also names the workers and their clock
 * offsets.
 */
final class ClusterExecutor implements LoadExecutor {
    private final RunRequest request;
    private final ClusterPlan cluster;
    private final EndpointUnderTest endpoint;
    private final Coordinator coordinator;
    private final List<Member> workers;
    private final Map<String, ClockOffset> clocks;
    private final URI uri;
    private final ClientSpec client;
    private final TokenCounter tokenCounter;
    private final OutputTokenPolicy outputTokens;
    private final PrintStream err;

    private ClusterExecutor(RunRequest request, EndpointUnderTest endpoint, Coordinator coordinator,
                            List<Member> workers, Map<String, ClockOffset> clocks, URI uri,
                            ClientSpec client, TokenCounter tokenCounter, OutputTokenPolicy outputTokens,
                            PrintStream err) {
        this.request = request;
        this.cluster = request.cluster();
        this.endpoint = endpoint;
        this.coordinator = coordinator;
        this.workers = workers;
        this.clocks = clocks;
        this.uri = uri;
        this.tokenCounter = tokenCounter;
        this.outputTokens = outputTokens;
        this.err = err;
        this.client = client;
    }

    /**
     * Starts the coordinator and waits for the workers (they send the requests: no client warm-up here).
     *
     * @param tokenCounter fills each record's client output token count on the workers' records
     * @param outputTokens the throughput count of each record
     */
    static ClusterExecutor open(RunRequest request, TokenCounter tokenCounter,
                                OutputTokenPolicy outputTokens, PrintStream err) {
        CommonSettings common = request.common();
        ClusterPlan cluster = request.cluster();
        LlmApi api = common.api(request.stream(), null);
        EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(), EndpointUnderTest.ESTIMATED_PROMPT_TOKENS,
                err);
        Coordinator coordinator = null;
        try {
            coordinator = Coordinator.start(cluster.settings(), line -> err.println("llmperf4j: cluster: " + line));
            URI uri = endpoint.uri(api);
            err.println("llmperf4j: coordinator " + coordinator.address() + " of cluster '"
                    + cluster.settings().clusterName() + "': waiting for " + cluster.workers() + " worker"
                    + (cluster.workers() == 1 ? "" : "s") + " (at most " + cluster.workerWait().toSeconds() + " s)");
            List<Member> workers = coordinator.awaitWorkers(cluster.workers(), cluster.workerWait());
            Map<String, ClockOffset> clocks = coordinator.measureClocks(workers);
            clocks.forEach((id, c) -> err.printf(Locale.ROOT,
                    "llmperf4j: cluster: worker %s clock offset %+.3f ms (round trip %.3f ms)%n", id,
                    c.offsetMillis(), c.roundTripMillis()));
            coordinator.checkReachable(workers, uri);
            ClientSpec client = clientSpec(request, uri);
            if (common.target() instanceof EndpointTarget.Remote) { // the embedded simulator needs no check
                // each worker with its own key, judged as this machine's check would be
                for (String model : request.load().models()) {
                    Preflight.checkWorkers(coordinator, workers, client, common.clientConfig(endpoint, api,
                            Preflight.checkParams(common.additionalSamplingParams()), request.includeUsage(), model,
                            1), ApiRegistry.get(common.llmApi()).keyVariable(),
                            Duration.ofSeconds(common.timeoutSeconds()), err);
                }
            }
            return new ClusterExecutor(request, endpoint, coordinator, workers, clocks, uri, client, tokenCounter,
                    outputTokens, err);
        } catch (RuntimeException e) {
            if (coordinator != null) {
                coordinator.close();
            }
            endpoint.close();
            throw e;
        }
    }

    @Override
    public URI uri() {
        return uri;
    }

    @Override
    public String apiKey() {
        return endpoint.apiKey();
    }

    @Override
    public String where(LoadPlan plan) {
        return ", over " + (plan.multiLevel() ? "at most " : "") + Plural.of(workers.size(), "worker");
    }

    @Override
    public BenchmarkResult run(String model, LoadPlan plan, ModelRun run, StopControl stops) {
        String coordinatorAddress = coordinator.address();
        DistributedLevels levels = new DistributedLevels(plan, coordinator, workers, clocks, client.withModel(model),
                run.workloads(), tokenCounter, outputTokens, model, (index, merged) -> {
                    printWorkers(merged);
                    run.levelSentBy(distributedJson(merged, coordinatorAddress));
                }, this::printWorkers, run::liveProgress, run::watchHeaderWaits);
        stops.attach(levels::stopLevel, levels::stopAll);
        try {
            return run.runWith(levels);
        } finally {
            stops.detach();
        }
    }

    @Override
    public void close() {
        try {
            coordinator.close();
        } finally {
            endpoint.close();
        }
    }

    private void printWorkers(MergedRun merged) {
        for (WorkerReport w : merged.workers()) {
            ClientOverhead c = w.clientOverhead();
            err.printf(Locale.ROOT, "llmperf4j: cluster: worker %s: %d requests, %d ok%s%s%n", w.workerId(),
                    w.recorded(), w.succeeded(), w.leftReason() == null ? "" : "; " + w.leftReason(),
                    c == null ? "" : String.format(Locale.ROOT, "; its client: event-loop lag p99 %.2f ms, CPU %.0f %%",
                            c.lagP99Nanos() / 1e6, 100 * c.processCpuShare()));
        }
    }

    /** The client each worker builds; its own API key is added there, and {@code --ca-cert} goes as text. */
    private static ClientSpec clientSpec(RunRequest request, URI uri) {
        CommonSettings common = request.common();
        Map<String, Object> params = new LinkedHashMap<>(common.additionalSamplingParams());
        String pem;
        try {
            pem = common.caCert() == null ? null : Files.readString(common.caCert(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidRequestException("--ca-cert: cannot read " + common.caCert() + ": " + e.getMessage());
        }
        return new ClientSpec(uri, common.llmApi(), request.stream(), common.model(), params, request.includeUsage(),
                common.numConcurrentRequests(), common.idleTimeout().toMillis(),
                common.requestTimeout() == null ? null : common.requestTimeout().toMillis(),
                common.connectTimeout().toMillis(), new LinkedHashMap<>(common.extraHeaders()), common.insecureTls(),
                pem, common.connectionMode());
    }

    private SummaryDocument.DistributedJson distributedJson(MergedRun merged, String coordinatorAddress) {
        List<SummaryDocument.WorkerJson> list = new ArrayList<>();
        for (WorkerReport w : merged.workers()) {
            ClockOffset c = w.clockOffset();
            list.add(new SummaryDocument.WorkerJson(w.workerId(), w.share(), w.assigned(), w.recorded(),
                    w.succeeded(), w.lost(), w.notSent(), c == null ? null : c.offsetMillis(), c == null ? null : c.roundTripMillis(),
                    w.startLagNanos() < 0 ? null : w.startLagNanos() / 1e6, w.leftReason()));
        }
        return new SummaryDocument.DistributedJson(cluster.settings().clusterName(), coordinatorAddress, list);
    }
}
