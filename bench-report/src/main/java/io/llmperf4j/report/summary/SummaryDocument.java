package io.llmperf4j.report.summary;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.llmperf4j.model.ServerGone;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.report.metrics.ConnectStats;
import io.llmperf4j.report.metrics.DeliveredTokens;
import io.llmperf4j.report.metrics.ErrorBreakdown;
import io.llmperf4j.report.metrics.Goodput;
import io.llmperf4j.report.metrics.ImageUsage;
import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.metrics.MetricRecorder;
import io.llmperf4j.report.metrics.MetricStats;
import io.llmperf4j.report.metrics.Phase;
import io.llmperf4j.report.metrics.PhaseStats;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.RunWarnings;
import io.llmperf4j.report.metrics.Slo;
import io.llmperf4j.report.metrics.TokenDiscrepancy;
import io.llmperf4j.report.metrics.TokenSourceCounts;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * llmperf4j's summary file, schema {@value SummaryJson#SCHEMA} ({@code summary.schema.json} beside this package's
 * parent): the test conditions a report must state, then the metrics with their units in the key names. Property
 * names are written in snake case by {@link SummaryJson}; undefined numbers are {@code null}, never 0 and never
 * NaN. Every key is always present, so consumers see one shape.
 *
 * @param schema         {@value SummaryJson#SCHEMA} when written; a document read back from an older file may carry
 *                       {@value SummaryJson#SCHEMA_2} or {@value SummaryJson#SCHEMA_1}, and then the sections it lacks
 *                       are null
 * @param tool           the tool and its version
 * @param environment    the client machine
 * @param settings       every run parameter, the endpoint without credentials
 * @param run            when, how long, how many requests
 * @param tokenCounting  where token counts came from, and how client and server counts compare
 * @param metrics        per-metric statistics, keyed by {@link Metric#jsonKey()} in {@link Metric} order
 * @param throughput     run-level rates
 * @param errors         failures by kind and code
 * @param connections    new connections the requests opened and their connect times, and the connections opened
 *                       before the clock
 * @param phases         where the successful requests' time went (null in a document read from a /1 or /2 file)
 * @param goodput        null unless an SLO was given
 * @param statistics     how the statistics were computed
 * @param clientOverhead how busy the client itself was; null when not measured
 * @param warnings       plain-English warnings with stable codes
 * @param distributed    null unless load workers sent the requests (token-benchmark --cluster): the workers and
 *                       their estimated clock offsets
 * @param server         the server's own metrics over the measured window (scraped from its Prometheus
 *                       {@code /metrics}); optional: absent when the server's metrics were not scraped
 * @param images         the images the requests sent and the input tokens both ways (server usage vs client text
 *                       count); optional: absent when no request carried an image
 * @param sessions       multi-turn sessions by turn and the prefix-cache hit rate the server reported; optional:
 *                       absent without sessions and without cached-token counts ({@link SessionsSummary})
 * @param slo            the run judged against its {@code --slo} objectives ({@link SloVerdictJson}); optional:
 *                       absent without objectives
 * @param keptUp         an open loop's verdict on its offer, the "Kept up:" line's in the sweep file's words: yes,
 *                       no, cannot_tell, client_behind (only the client's send lag failed it), at_cap (only waits
 *                       for a slot at the --max-concurrency cap did); optional: absent for a closed loop, sessions,
 *                       and a level the rule does not judge
 */
public record SummaryDocument(
        String schema,
        ToolJson tool,
        RunEnvironment environment,
        SettingsJson settings,
        RunJson run,
        TokenCountingJson tokenCounting,
        Map<String, StatsJson> metrics,
        ThroughputJson throughput,
        ErrorsJson errors,
        ConnectionsJson connections,
        PhasesJson phases,
        GoodputJson goodput,
        StatisticsJson statistics,
        ClientOverheadJson clientOverhead,
        List<WarningJson> warnings,
        DistributedJson distributed,
        @JsonInclude(JsonInclude.Include.NON_NULL) ServerSideSummary server,
        @JsonInclude(JsonInclude.Include.NON_NULL) ImagesJson images,
        @JsonInclude(JsonInclude.Include.NON_NULL) SessionsSummary sessions,
        @JsonInclude(JsonInclude.Include.NON_NULL) SloVerdictJson slo,
        @JsonInclude(JsonInclude.Include.NON_NULL) String keptUp) {

    /** A summary without an images or sessions section. */
    public SummaryDocument(String schema, ToolJson tool, RunEnvironment environment, SettingsJson settings, RunJson run,
                           TokenCountingJson tokenCounting, Map<String, StatsJson> metrics, ThroughputJson throughput,
                           ErrorsJson errors, ConnectionsJson connections, PhasesJson phases, GoodputJson goodput,
                           StatisticsJson statistics, ClientOverheadJson clientOverhead, List<WarningJson> warnings,
                           DistributedJson distributed, ServerSideSummary server) {
        this(schema, tool, environment, settings, run, tokenCounting, metrics, throughput, errors, connections, phases,
                goodput, statistics, clientOverhead, warnings, distributed, server, null, null, null, null);
    }

    private static final double NANOS_PER_MILLI = 1e6;
    private static final double NANOS_PER_SECOND = 1e9;

    public SummaryDocument {
        Objects.requireNonNull(schema, "schema");
        metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
        warnings = List.copyOf(warnings);
    }

    /**
     * The summary of {@code run} and its metrics.
     *
     * @param toolVersion the llmperf4j version that measured the run
     * @param environment the client machine ({@link RunEnvironment#current()} when written right after the run)
     */
    public static SummaryDocument of(BenchmarkRun run, RunMetrics metrics, String toolVersion,
                                     RunEnvironment environment) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(toolVersion, "toolVersion");
        Objects.requireNonNull(environment, "environment");

        Map<String, StatsJson> stats = new LinkedHashMap<>();
        for (Metric metric : Metric.values()) stats.put(metric.jsonKey(), StatsJson.of(metrics.stats(metric)));

        ErrorBreakdown errors = metrics.errors();
        Map<String, Integer> byKind = new LinkedHashMap<>();
        errors.byKind().forEach((kind, n) -> byKind.put(kind.name(), n));
        Map<String, Integer> byCode = new LinkedHashMap<>();
        errors.byCode().forEach((code, n) -> byCode.put(Integer.toString(code), n));

        return new SummaryDocument(
                SummaryJson.SCHEMA,
                new ToolJson("llmperf4j", toolVersion),
                environment,
                SettingsJson.of(run.settings()),
                new RunJson(Instant.ofEpochMilli(run.startEpochMillis()).toString(),
                        Instant.ofEpochMilli(run.endEpochMillis()).toString(), run.durationNanos() / NANOS_PER_SECOND,
                        run.timedOut(), metrics.requestsSent(), metrics.requestsRecorded(),
                        metrics.requestsSucceeded(), metrics.requestsFailed(), null),
                new TokenCountingJson(metrics.config().tokenCounting().preferServerUsage(),
                        metrics.config().tokenCounting().clientSpecialTokens(),
                        summarize(metrics.outputTokenSources()), TokenSourcesJson.of(metrics.outputTokenSources()),
                        summarize(metrics.inputTokenSources()), TokenSourcesJson.of(metrics.inputTokenSources()),
                        DiscrepancyJson.of(metrics.tokenDiscrepancy())),
                stats,
                ThroughputJson.of(metrics, metrics.deliveredIn(run)),
                new ErrorsJson(errors.failed(), num(errors.errorRate()), byKind, byCode, errors.earlier()),
                ConnectionsJson.of(ConnectStats.of(run)),
                PhasesJson.of(PhaseStats.of(metrics.requests())),
                metrics.goodput().map(GoodputJson::of).orElse(null),
                StatisticsJson.CURRENT,
                ClientOverheadJson.of(run.clientOverhead(), metrics),
                metrics.warnings().stream().map(WarningJson::of).toList(),
                null,
                null,
                ImagesJson.of(ImageUsage.of(run)),
                SessionsSummary.of(run.records(), metrics.config().tokenCounting()),
                SloVerdictJson.of(metrics.sloVerdict().orElse(null), metrics.goodput().map(
                        Goodput::fromIntendedSend).orElse(false)),
                metrics.keptUp());
    }

    /** The same summary for a distributed run. */
    public SummaryDocument withDistributed(DistributedJson workers) {
        return new SummaryDocument(schema, tool, environment, settings, run, tokenCounting, metrics, throughput,
                errors, connections, phases, goodput, statistics, clientOverhead, warnings, workers, server, images,
                sessions, slo, keptUp);
    }

    /**
     * The same summary of a run a signal cut short ({@code signal}: "SIGINT" or "SIGTERM"; null: it was not):
     * {@code run.stopped_by}.
     */
    public SummaryDocument withStoppedBy(String signal) {
        return new SummaryDocument(schema, tool, environment, settings, run.stoppedBy(signal), tokenCounting, metrics,
                throughput, errors, connections, phases, goodput, statistics, clientOverhead, warnings, distributed,
                server, images, sessions, slo, keptUp);
    }

    /**
     * The same summary with a closed loop's count of its sessions' turns never sent ({@code sessions.turns_not_sent});
     * null, or a summary without a sessions section, leaves it as it is.
     */
    public SummaryDocument withSessionTurnsNotSent(Integer turns) {
        if (turns == null || sessions == null) return this;
        return new SummaryDocument(schema, tool, environment, settings, run, tokenCounting, metrics, throughput,
                errors, connections, phases, goodput, statistics, clientOverhead, warnings, distributed, server,
                images, sessions.withTurnsNotSent(turns), slo, keptUp);
    }

    /** The same summary with the server's side of the measured window (null: none). */
    public SummaryDocument withServer(ServerSideSummary serverSide) {
        return new SummaryDocument(schema, tool, environment, settings, run, tokenCounting, metrics, throughput,
                errors, connections, phases, goodput, statistics, clientOverhead, warnings, distributed, serverSide,
                images, sessions, slo, keptUp);
    }

    /**
     * One word for a run's token source: the source every counted request used, {@code "mixed"} when they
     * differ, {@code "none"} when no successful request had a count.
     */
    static String summarize(TokenSourceCounts counts) {
        int sources = (counts.serverUsage() > 0 ? 1 : 0) + (counts.clientTokenizer() > 0 ? 1 : 0);
        if (sources == 2) return "mixed";
        if (counts.serverUsage() > 0) return "server_usage";
        if (counts.clientTokenizer() > 0) return "client_tokenizer";
        return "none";
    }

    /** null for NaN and infinities (JSON has neither). */
    static Double num(double value) {
        return Double.isFinite(value) ? value : null;
    }

    private static Double millis(Duration duration) {
        return duration == null ? null : duration.toNanos() / NANOS_PER_MILLI;
    }

    /**
     * The images sent, then the input tokens of the successful requests with images both ways:
     * {@code server_prompt_tokens} from the server's {@code usage.prompt_tokens} (text, image tokens and chat
     * template as the model counts them), {@code client_text_tokens} the client tokenizer's count of the text alone,
     * and their difference per image (the image tokens plus the text's template and tokenizer difference); then the
     * server's count of text alone, a least-squares line over the successful requests without images
     * ({@code text_only_requests_with_server_usage}; fixed tokens per request and server tokens per client token), and
     * {@code image_tokens_per_image}, the usage less that line's text, per image (null without such requests, and in
     * files written before it); {@code detail}, the {@code --image-detail} every image part carried (it sets an
     * image's token cost; null: none sent, the server's default, and in files written before it). Null (absent) when
     * no request carried an image.
     */
    public record ImagesJson(int requestsWithImages, long imagesSent, long pixelsSent, long bytesSent,
                             int requestsWithServerUsage, long serverPromptTokens, long clientTextTokens,
                             Double serverPromptTokensPerRequest, Double clientTextTokensPerRequest,
                             Double serverTokensBeyondTextPerImage, Integer textOnlyRequestsWithServerUsage,
                             Double textServerTokensFixed, Double textServerTokensPerClientToken,
                             Double imageTokensPerImage, String detail) {
        static ImagesJson of(ImageUsage u) {
            if (!u.any()) return null;
            return new ImagesJson(u.requestsWithImages(), u.images(), u.pixels(), u.bytes(),
                    u.requestsWithServerUsage(), u.serverPromptTokens(), u.clientTextTokens(),
                    num(u.serverPromptTokensPerRequest()), num(u.clientTextTokensPerRequest()),
                    num(u.serverTokensBeyondTextPerImage()), u.textBaseline().requests(),
                    num(u.textBaseline().fixedTokens()), num(u.textBaseline().tokensPerClientToken()),
                    num(u.imageTokensPerImage()), u.detail());
        }
    }

    /** The tool that wrote the file. */
    public record ToolJson(String name, String version) {
    }

    /**
     * Every {@link BenchmarkSettings} parameter ({@code stream}, {@code connection_mode} and {@code simulated} only
     * when recorded, so a summary from before them or from a run that does not know them has none of them);
     * {@code endpoint} and {@code metadata} pass through {@link Redaction}, key-shaped strings in
     * {@code additionalSamplingParams} too. {@code simulated} is true for a run against the embedded simulated server,
     * whose files may carry a real model's name. {@code input_tokens_tokenizer} only when the input tokens were
     * counted by another tokenizer than {@code tokenizer} (a replayed manifest's counts).
     */
    public record SettingsJson(
            String model,
            String endpoint,
            String llmApi,
            int meanInputTokens,
            int stddevInputTokens,
            int meanOutputTokens,
            int stddevOutputTokens,
            int numConcurrentRequests,
            int timeoutS,
            int maxNumCompletedRequests,
            Object additionalSamplingParams,
            Map<String, String> metadata,
            String tokenizer,
            String promptMode,
            long seed,
            @JsonInclude(JsonInclude.Include.NON_NULL) Boolean stream,
            @JsonInclude(JsonInclude.Include.NON_NULL) String connectionMode,
            @JsonInclude(JsonInclude.Include.NON_NULL) Boolean simulated,
            @JsonInclude(JsonInclude.Include.NON_NULL) String inputTokensTokenizer) {

        static SettingsJson of(BenchmarkSettings s) {
            return new SettingsJson(s.model(), Redaction.endpoint(s.endpoint()), s.llmApi(), s.meanInputTokens(),
                    s.stddevInputTokens(), s.meanOutputTokens(), s.stddevOutputTokens(), s.numConcurrentRequests(),
                    s.timeoutSeconds(), s.maxNumCompletedRequests(),
                    Redaction.jsonValue(s.additionalSamplingParams()), Redaction.metadata(s.metadata()),
                    s.tokenizer(), s.promptMode(), s.seed(), s.stream(), s.connectionMode(), s.simulated(),
                    s.inputTokensTokenizer());
        }
    }

    /**
     * The run's window and request counts; times are ISO-8601 UTC.
     *
     * @param stoppedBy "SIGINT" or "SIGTERM" when a signal (Ctrl-C, a scheduler's TERM) cut the run (this level)
     *                  short: its requests in flight were cancelled and it did not run to its end; absent otherwise
     */
    public record RunJson(
            String startTime,
            String endTime,
            double durationS,
            boolean timedOut,
            int requestsSent,
            int requestsRecorded,
            int requestsSucceeded,
            int requestsFailed,
            @JsonInclude(JsonInclude.Include.NON_NULL) String stoppedBy) {

        /** The same window, cut short by {@code signal} ("SIGINT", "SIGTERM"; null: not stopped). */
        public RunJson stoppedBy(String signal) {
            return new RunJson(startTime, endTime, durationS, timedOut, requestsSent, requestsRecorded,
                    requestsSucceeded, requestsFailed, signal);
        }
    }

    /** Token sources: one word and the per-source counts, for output and input, plus the client/server check. */
    public record TokenCountingJson(
            boolean preferServerUsage,
            int clientSpecialTokensSubtracted,
            String outputTokenSource,
            TokenSourcesJson outputTokenSourceCounts,
            String inputTokenSource,
            TokenSourcesJson inputTokenSourceCounts,
            DiscrepancyJson outputTokenDiscrepancy) {
    }

    /** Successful requests per token source. */
    public record TokenSourcesJson(int serverUsage, int clientTokenizer, int none) {
        static TokenSourcesJson of(TokenSourceCounts c) {
            return new TokenSourcesJson(c.serverUsage(), c.clientTokenizer(), c.none());
        }
    }

    /** See {@link TokenDiscrepancy}; differences are client − server. */
    public record DiscrepancyJson(
            int requestsCompared,
            int requestsDiffering,
            Double percentDiffering,
            Double meanAbsoluteDifference,
            Integer maxAbsoluteDifference,
            Double meanSignedDifference) {
        static DiscrepancyJson of(TokenDiscrepancy d) {
            return new DiscrepancyJson(d.requestsCompared(), d.requestsDiffering(), num(d.percentDiffering()),
                    num(d.meanAbsoluteDifference()), d.requestsCompared() == 0 ? null : d.maxAbsoluteDifference(),
                    num(d.meanSignedDifference()));
        }
    }

    /** One metric's statistics in the unit its key names (ms, tokens_per_s, tokens). */
    public record StatsJson(
            long count,
            Double p50,
            Double p90,
            Double p95,
            Double p99,
            @JsonProperty("p99_9") Double p999,
            Double min,
            Double max,
            Double mean,
            Double stddev,
            Double meanCi95Low,
            Double meanCi95High) {

        static StatsJson of(MetricStats s) {
            Function<Double, Double> u = v -> num(s.metric().unit().toReportUnit(v));
            return new StatsJson(s.count(), u.apply(s.p50()), u.apply(s.p90()), u.apply(s.p95()), u.apply(s.p99()),
                    u.apply(s.p999()), u.apply(s.min()), u.apply(s.max()), u.apply(s.mean()), u.apply(s.stddev()),
                    u.apply(s.meanCiLow()), u.apply(s.meanCiHigh()));
        }
    }

    /**
     * Run-level rates; null for a zero-length run. {@code outputTokensPerS} is llmperf's: the successful requests'
     * tokens over the window. {@code outputTokensPerSDelivered} counts every token delivered inside the window, the
     * tokens of requests cancelled or failed after content arrived included, and those the warmup's last requests
     * delivered after the window opened ({@link DeliveredTokens}): the figure to set beside the server's generation
     * counter. The delivered keys are null in a document read from a file written
     * before them.
     *
     * @param outputTokensDelivered         tokens delivered inside the window, every request's
     * @param outputTokensDeliveredByFailed of which by requests that did not succeed (cancelled ones included)
     * @param outputTokensPerSDelivered     {@code outputTokensDelivered} per second of the window
     */
    public record ThroughputJson(Double outputTokensPerS, Double requestsPerS, long totalOutputTokens,
                                 Double outputTokensDelivered, Double outputTokensDeliveredByFailed,
                                 @JsonProperty("output_tokens_per_s_delivered") Double outputTokensPerSDelivered) {

        /** Without the delivered figures. */
        public ThroughputJson(Double outputTokensPerS, Double requestsPerS, long totalOutputTokens) {
            this(outputTokensPerS, requestsPerS, totalOutputTokens, null, null, null);
        }

        static ThroughputJson of(RunMetrics metrics, DeliveredTokens delivered) {
            return new ThroughputJson(num(metrics.outputTokensPerSecond()), num(metrics.requestsPerSecond()),
                    metrics.totalOutputTokens(), num(delivered.tokens()), num(delivered.fromFailed()),
                    num(delivered.tokensPerSecond()));
        }
    }

    /**
     * Failures: count, rate (of recorded requests), per {@code FailureKind} name and per code; for a sweep's level
     * whose refused connections the sweep read as the server gone since an earlier level, that reading
     * ({@code server_gone_before}: when the earlier level was first answered, and the verdict's words), which the
     * level's page reads its error table with.
     */
    public record ErrorsJson(int count, Double rate, Map<String, Integer> byKind, Map<String, Integer> byCode,
                             @JsonInclude(JsonInclude.Include.NON_NULL) ServerGone.Earlier serverGoneBefore) {

        /** Failures read alone. */
        public ErrorsJson(int count, Double rate, Map<String, Integer> byKind, Map<String, Integer> byCode) {
            this(count, rate, byKind, byCode, null);
        }
    }

    /**
     * New connections among the recorded requests and their connect times (TCP and TLS) in ms, then the connections
     * opened before the clock (null counts in a document read from a /1 or /2 file); see {@link ConnectStats}.
     */
    public record ConnectionsJson(int newConnections, int requestsWithoutNewConnection, Double connectP50Ms,
                                  Double connectP99Ms, Double connectMaxMs, Integer preconnected,
                                  Double preconnectP50Ms, Double preconnectP99Ms, Double preconnectMaxMs) {
        static ConnectionsJson of(ConnectStats c) {
            return new ConnectionsJson(c.newConnections(), c.withoutConnect(), num(c.p50Nanos() / NANOS_PER_MILLI),
                    num(c.p99Nanos() / NANOS_PER_MILLI), num(c.maxNanos() / NANOS_PER_MILLI), c.preconnected(),
                    num(c.preconnectP50Nanos() / NANOS_PER_MILLI), num(c.preconnectP99Nanos() / NANOS_PER_MILLI),
                    num(c.preconnectMaxNanos() / NANOS_PER_MILLI));
        }
    }

    /**
     * Where the successful requests' time went, in ms; see {@link PhaseStats} and METRICS.md, "Timing phases".
     *
     * @param requestsTimed       successful requests with every TTFT milestone known
     * @param ttftBreakdownMeanMs the mean of each TTFT term over them, summing to their mean TTFT; null when none
     */
    public record PhasesJson(int requestsTimed, TtftBreakdownJson ttftBreakdownMeanMs, PhaseJson connectionWaitMs,
                             PhaseJson connectMs, PhaseJson requestWriteMs, PhaseJson responseHeadersMs,
                             PhaseJson firstContentMs, PhaseJson contentMs, PhaseJson tailMs, PhaseJson tlsMs) {
        static PhasesJson of(PhaseStats p) {
            TtftBreakdownJson breakdown = p.timedRequests() == 0 ? null : new TtftBreakdownJson(
                    ms(p.ttftBreakdown().get(Phase.CONNECTION_WAIT)), ms(p.ttftBreakdown().get(Phase.CONNECT)),
                    ms(p.ttftBreakdown().get(Phase.REQUEST_WRITE)), ms(p.ttftBreakdown().get(Phase.RESPONSE_HEADERS)),
                    ms(p.ttftBreakdown().get(Phase.FIRST_CONTENT)), ms(p.ttftMeanNanos()));
            return new PhasesJson(p.timedRequests(), breakdown, PhaseJson.of(p.stats(Phase.CONNECTION_WAIT)),
                    PhaseJson.of(p.stats(Phase.CONNECT)), PhaseJson.of(p.stats(Phase.REQUEST_WRITE)),
                    PhaseJson.of(p.stats(Phase.RESPONSE_HEADERS)), PhaseJson.of(p.stats(Phase.FIRST_CONTENT)),
                    PhaseJson.of(p.stats(Phase.CONTENT)), PhaseJson.of(p.stats(Phase.TAIL)),
                    PhaseJson.of(p.stats(Phase.TLS)));
        }

        private static double ms(double nanos) {
            return nanos / NANOS_PER_MILLI;
        }
    }

    /** The mean TTFT terms in ms; they add up to {@code ttft}. */
    public record TtftBreakdownJson(double connectionWait, double connect, double requestWrite,
                                    double responseHeaders, double firstContent, double ttft) {
    }

    /** One phase in ms: how many requests measured it, p50, p90, p99, mean and max; null numbers without values. */
    public record PhaseJson(int count, Double p50, Double p90, Double p99, Double mean, Double max) {
        static PhaseJson of(PhaseStats.Dist d) {
            return new PhaseJson(d.count(), num(d.p50() / NANOS_PER_MILLI), num(d.p90() / NANOS_PER_MILLI),
                    num(d.p99() / NANOS_PER_MILLI), num(d.mean() / NANOS_PER_MILLI), num(d.max() / NANOS_PER_MILLI));
        }
    }

    /**
     * How busy the client itself was over the run (see {@link ClientOverhead}); shares are fractions, null when the
     * JVM could not tell. {@code likelyBottleneck} is true when the CLIENT_BOTTLENECK warning was raised; the idle
     * baseline (null when not measured) and the lag threshold it gave are the rule's inputs, with the run's TTFT and
     * ITL p50 (in {@code metrics}) that the lag must be a material part of.
     */
    public record ClientOverheadJson(
            double wallS,
            int ioThreads,
            int availableProcessors,
            long eventLoopLagSamples,
            Double eventLoopLagP50Ms,
            Double eventLoopLagP99Ms,
            Double eventLoopLagMaxMs,
            Double ioBusyShareMean,
            Double ioBusyShareMax,
            double gcPauseMs,
            long gcCount,
            Double processCpuShare,
            boolean likelyBottleneck,
            Double idleEventLoopLagP99Ms,
            double eventLoopLagThresholdMs,
            Double ioRunnableShareMax) {
        /** {@code likelyBottleneck} by the warning's own rule, over {@code metrics}' TTFT and ITL. */
        static ClientOverheadJson of(ClientOverhead o, RunMetrics metrics) {
            if (o == null) return null;
            boolean lagged = o.lagSamples() > 0;
            return new ClientOverheadJson(o.wallNanos() / NANOS_PER_SECOND, o.ioThreads(), o.availableProcessors(),
                    o.lagSamples(), lagged ? o.lagP50Nanos() / NANOS_PER_MILLI : null,
                    lagged ? o.lagP99Nanos() / NANOS_PER_MILLI : null,
                    lagged ? o.lagMaxNanos() / NANOS_PER_MILLI : null, num(o.ioBusyShareMean()),
                    num(o.ioBusyShareMax()), o.gcPauseNanos() / NANOS_PER_MILLI, o.gcCount(),
                    num(o.processCpuShare()), RunWarnings.clientBottleneck(o, metrics).isPresent(),
                    o.hasIdleBaseline() ? o.idleLagP99Nanos() / NANOS_PER_MILLI : null,
                    RunWarnings.clientLagThresholdNanos(o) / NANOS_PER_MILLI, num(o.ioRunnableShareMax()));
        }
    }

    /** Goodput under the SLO; see {@link Goodput}. */
    public record GoodputJson(
            SloJson slo,
            int goodRequests,
            int recordedRequests,
            int judgedRequests,
            Double goodRequestsPerS,
            Double goodFraction,
            ViolationsJson violations) {
        static GoodputJson of(Goodput g) {
            Slo slo = g.slo();
            return new GoodputJson(new SloJson(millis(slo.ttft()), millis(slo.tpot()), millis(slo.e2e())),
                    g.goodRequests(), g.recordedRequests(), g.judgedRequests(), num(g.goodRequestsPerSecond()),
                    num(g.goodFraction()),
                    new ViolationsJson(g.ttftViolations(), g.tpotViolations(), g.e2eViolations()));
        }
    }

    /** The SLO's bounds in ms; null where not bounded. */
    public record SloJson(Double ttftMs, Double tpotMs, Double e2eLatencyMs) {
    }

    /** Successful requests that missed each bound. */
    public record ViolationsJson(int ttft, int tpot, int e2eLatency) {
    }

    /**
     * How the numbers were computed, so a reader can compare them with another tool's. The significant digits and
     * lowest discernible value described the HdrHistogram percentiles of /1 and /2 files; they are null since /3,
     * whose percentiles are exact.
     */
    public record StatisticsJson(
            String population,
            String percentileMethod,
            Integer significantValueDigits,
            Long lowestDiscernibleNs,
            String stddev,
            double meanConfidenceLevel,
            String meanConfidenceInterval) {

        static final StatisticsJson CURRENT = new StatisticsJson(
                "successful requests only; itl pools every inter-event gap of every successful request, "
                        + "itl_per_token every per-token share of those gaps",
                "linear interpolation between the two nearest exact values (numpy.percentile's default)", null,
                null, "sample (n - 1), exact", MetricRecorder.MEAN_CONFIDENCE_LEVEL, "Student t, exact moments");
    }

    /** A warning: stable code, plain-English message. */
    public record WarningJson(String code, String message) {
        public static WarningJson of(RunWarning w) {
            return new WarningJson(w.code().name(), w.message());
        }
    }

    /**
     * A distributed run: the coordinator and each load worker. Latencies are measured on each worker's own monotonic
     * clock; only the shared start instant crosses machines, corrected by each worker's estimated clock offset.
     *
     * @param clusterName the Hazelcast cluster
     * @param coordinator the coordinator's cluster address
     * @param workers     one entry per worker, in the order the shares were handed out
     */
    public record DistributedJson(String clusterName, String coordinator, List<WorkerJson> workers) {
        public DistributedJson {
            workers = List.copyOf(workers);
        }
    }

    /**
     * One load worker.
     *
     * @param id                   its cluster address
     * @param share                its concurrency or rate, in words
     * @param requestsAssigned     requests handed to it (0 for an open loop bounded by duration only)
     * @param requestsRecorded     records it contributed, lost ones included
     * @param requestsSucceeded    of which succeeded
     * @param requestsLost         of which lost when it left or failed (error kind LOST)
     * @param requestsNotSent      of its assigned requests, those it never sent because it left or failed (no
     *                             record, not in {@code run.requests_sent}); 0 when it finished its share, or when
     *                             it had no count (an open loop bounded by duration)
     * @param clockOffsetMs        its wall clock minus the coordinator's, estimated NTP-style from the fastest of
     *                             several round trips: {@code remote - (t0 + t1) / 2}
     * @param clockRoundTripMs     that round trip; the offset is wrong by at most half of it
     * @param startLagMs           how late it started after the shared instant, on its own clock; null when it never
     *                             reported
     * @param left                 why its unfinished requests were lost, or null when it finished its share
     */
    public record WorkerJson(String id, String share, int requestsAssigned, int requestsRecorded,
                             int requestsSucceeded, int requestsLost, int requestsNotSent, Double clockOffsetMs,
                             Double clockRoundTripMs,
                             Double startLagMs, String left) {
    }
}
