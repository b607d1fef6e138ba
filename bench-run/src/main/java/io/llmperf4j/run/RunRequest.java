package io.llmperf4j.run;

import io.llmperf4j.report.metrics.Slo;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.search.SearchPlan;

/**
 * One token benchmark, as a plain value: built by the CLI from its flags, or by a Java caller, and run by
 * {@link Runner#run(RunRequest)}. Every run (llmperf's plain closed loop, an open loop, a sweep, iterations, several
 * models, embeddings) is this request with another {@link LoadPlan}; a cluster is the same request with a
 * {@link ClusterPlan}.
 *
 * @param common             endpoint, model, llmperf's closed-loop numbers, results folder, connection options
 * @param workload           where the prompts come from and what counts tokens
 * @param includeUsage       send stream_options.include_usage
 * @param slo                service-level objectives for goodput, or null
 * @param stream             false: "stream": false, one JSON response per request
 * @param embeddingBatchSize inputs per embeddings request
 * @param clientWarmup       warm the client's own code against a private in-process simulator first
 * @param saveEvents         also write {@code <base>_events.csv}
 * @param load               the load; {@link LoadPlan#plain} for llmperf's closed loop
 * @param cluster            the workers that send, or null to send from this process
 * @param serverMetrics      whether and where to scrape the server's Prometheus metrics; null means
 *                           {@link ServerMetricsOptions#DEFAULT}
 * @param search             a capacity search instead of the load's levels, or null
 * @param objectives         the {@code --slo} objectives each level (a plain run's one) is judged against at its end,
 *                           and the terms behind the goodput bounds; null for none (a capacity search judges its
 *                           levels itself)
 */
public record RunRequest(
        CommonSettings common,
        WorkloadSpec workload,
        boolean includeUsage,
        Slo slo,
        boolean stream,
        int embeddingBatchSize,
        boolean clientWarmup,
        boolean saveEvents,
        LoadPlan load,
        ClusterPlan cluster,
        ServerMetricsOptions serverMetrics,
        SearchPlan search,
        SloObjectives objectives) {

    public RunRequest {
        serverMetrics = serverMetrics == null ? ServerMetricsOptions.DEFAULT : serverMetrics;
    }

    /** A request without objectives to judge. */
    public RunRequest(CommonSettings common, WorkloadSpec workload, boolean includeUsage, Slo slo, boolean stream,
                      int embeddingBatchSize, boolean clientWarmup, boolean saveEvents, LoadPlan load,
                      ClusterPlan cluster, ServerMetricsOptions serverMetrics, SearchPlan search) {
        this(common, workload, includeUsage, slo, stream, embeddingBatchSize, clientWarmup, saveEvents, load, cluster,
                serverMetrics, search, null);
    }

    /** A request without a capacity search. */
    public RunRequest(CommonSettings common, WorkloadSpec workload, boolean includeUsage, Slo slo, boolean stream,
                      int embeddingBatchSize, boolean clientWarmup, boolean saveEvents, LoadPlan load,
                      ClusterPlan cluster, ServerMetricsOptions serverMetrics) {
        this(common, workload, includeUsage, slo, stream, embeddingBatchSize, clientWarmup, saveEvents, load, cluster,
                serverMetrics, null);
    }

    /** A request with the default server metrics (the endpoint's origin + /metrics, when served). */
    public RunRequest(CommonSettings common, WorkloadSpec workload, boolean includeUsage, Slo slo, boolean stream,
                      int embeddingBatchSize, boolean clientWarmup, boolean saveEvents, LoadPlan load,
                      ClusterPlan cluster) {
        this(common, workload, includeUsage, slo, stream, embeddingBatchSize, clientWarmup, saveEvents, load, cluster,
                ServerMetricsOptions.DEFAULT);
    }

    /** The same request sent by the workers of {@code cluster}. */
    public RunRequest onCluster(ClusterPlan other) {
        return new RunRequest(common, workload, includeUsage, slo, stream, embeddingBatchSize, clientWarmup,
                saveEvents, load, other, serverMetrics, search, objectives);
    }
}
