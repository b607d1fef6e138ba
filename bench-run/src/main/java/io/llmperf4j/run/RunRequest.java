package io.llmperf4j.run;

import io.llmperf4j.report.metrics.Slo;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.search.SearchPlan;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

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

    /**
     * A builder for a Java caller: llmperf's token benchmark (its closed loop of 10 requests, 10 in flight, 90 s,
     * llmperf's workload, streamed with usage, the client warmed up first) against the endpoint {@code apiBase} (e.g.
     * {@code http://127.0.0.1:8000/v1}), with the command line's connection defaults and no files written until
     * {@link Builder#resultsDir} names a folder; each setter changes one thing.
     */
    public static Builder builder(String apiBase, String apiKey, String model) {
        return new Builder(apiBase, apiKey, model);
    }

    /** Builds a {@link RunRequest} by name, for a caller who sets a few of its many components. */
    public static final class Builder {
        private final String apiBase;
        private final String apiKey;
        private final String model;
        private String llmApi = "openai";
        private int concurrency = 10;
        private int requests = 10;
        private int timeoutSeconds = 90;
        private Path resultsDir;
        private boolean overwrite;
        private WorkloadSpec workload = WorkloadSpec.llmperfDefaults();
        private LoadPlan load;
        private boolean clientWarmup = true;
        private boolean saveEvents;
        private boolean stream = true;
        private ClusterPlan cluster;

        private Builder(String apiBase, String apiKey, String model) {
            this.apiBase = Objects.requireNonNull(apiBase, "apiBase");
            this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
            this.model = Objects.requireNonNull(model, "model");
        }

        /** An {@link io.llmperf4j.engine.client.ApiRegistry} name: openai (default), anthropic, ... */
        public Builder llmApi(String llmApi) {
            this.llmApi = Objects.requireNonNull(llmApi, "llmApi");
            return this;
        }

        /** llmperf's closed loop: {@code concurrency} requests in flight, {@code requests} in all. */
        public Builder closedLoop(int concurrency, int requests) {
            this.concurrency = concurrency;
            this.requests = requests;
            return this;
        }

        /** The run's time limit (llmperf's --timeout). */
        public Builder timeoutSeconds(int timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
            return this;
        }

        /** Where every file goes (a folder holding an earlier run's results is refused unless overwrite). */
        public Builder resultsDir(Path resultsDir) {
            this.resultsDir = resultsDir;
            return this;
        }

        public Builder overwrite(boolean overwrite) {
            this.overwrite = overwrite;
            return this;
        }

        /** The prompts and their lengths; {@link WorkloadSpec#llmperfDefaults()} by default. */
        public Builder workload(WorkloadSpec workload) {
            this.workload = Objects.requireNonNull(workload, "workload");
            return this;
        }

        /** Another load than the closed loop (a sweep, an open loop): {@link LoadPlan}'s factories. */
        public Builder load(LoadPlan load) {
            this.load = load;
            return this;
        }

        /** Warm the client's own code against a private in-process simulator first (default true). */
        public Builder clientWarmup(boolean clientWarmup) {
            this.clientWarmup = clientWarmup;
            return this;
        }

        /** Also write {@code <base>_events.csv}. */
        public Builder saveEvents(boolean saveEvents) {
            this.saveEvents = saveEvents;
            return this;
        }

        /** false: "stream": false, one JSON response per request. */
        public Builder stream(boolean stream) {
            this.stream = stream;
            return this;
        }

        /** The workers that send, or null (default) to send from this process. */
        public Builder cluster(ClusterPlan cluster) {
            this.cluster = cluster;
            return this;
        }

        public RunRequest build() {
            CommonSettings common = new CommonSettings(
                    new EndpointTarget.Remote(apiBase, apiKey, "RunRequest.builder's apiBase",
                            "RunRequest.builder's apiKey", Duration.ZERO), model,
                    concurrency, timeoutSeconds, requests, Map.of(), resultsDir, llmApi, Map.of(),
                    Duration.ofSeconds(180), Map.of(), null, null, Duration.ofSeconds(30), false, overwrite, null,
                    null);
            LoadPlan plan = load != null ? load
                    : LoadPlan.plain(model, concurrency, requests, Duration.ofSeconds(timeoutSeconds));
            return new RunRequest(common, workload, true, null, stream, 1, clientWarmup, saveEvents, plan, cluster);
        }
    }

    /** The same request sent by the workers of {@code cluster}. */
    public RunRequest onCluster(ClusterPlan other) {
        return new RunRequest(common, workload, includeUsage, slo, stream, embeddingBatchSize, clientWarmup,
                saveEvents, load, other, serverMetrics, search, objectives);
    }
}
