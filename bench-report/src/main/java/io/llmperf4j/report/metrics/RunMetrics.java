package io.llmperf4j.report.metrics;

import io.llmperf4j.model.FailureKind;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.ServerGone;
import io.llmperf4j.report.search.LevelJudgement;
import io.llmperf4j.report.search.RunVerdict;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * llmperf4j's metrics of one run (llmperf's own numbers stay in {@code report.llmperf}). Distributions cover
 * successful requests; counts and rates say how many requests they stand for.
 *
 * <ul>
 *   <li>{@code outputTokensPerSecond} = Σ output tokens of successful requests (by their token source) / run
 *       seconds, the run being {@link BenchmarkRun#durationNanos()} (the same window as llmperf's).</li>
 *   <li>{@code requestsPerSecond} = successful requests / run seconds.</li>
 * </ul>
 * Rates of a zero-length run are NaN.
 *
 * @param config                how the metrics were computed
 * @param requests              every recorded request's metrics, in record order
 * @param stats                 each metric's statistics over the successful requests, in {@link Metric} order
 * @param durationNanos         the run's measured window
 * @param requestsSent          requests put on the wire
 * @param requestsRecorded      requests that reached an outcome
 * @param requestsSucceeded     successful requests
 * @param totalOutputTokens     Σ output tokens of successful requests with a count
 * @param outputTokensPerSecond see above
 * @param requestsPerSecond     see above
 * @param outputTokenSources    where the successful requests' output counts came from
 * @param inputTokenSources     where their input counts came from
 * @param tokenDiscrepancy      client against server output counts
 * @param errors                failures by kind and code
 * @param goodput               present when the config has an SLO
 * @param sloVerdict            present when the config has objectives: the requests judged against them by the
 *                              capacity search's rule ({@link RunVerdict}), from the intended send like goodput
 * @param warnings              what the reader must know, in {@link WarningCode} order
 * @param delivered             every output token delivered inside the window ({@link DeliveredTokens}), the
 *                              warmup's included when the run's warmup records were given, computed once for the
 *                              summary and the console; null when these metrics were not computed from a run (merged
 *                              iterations) or were rebuilt without it ({@link #deliveredIn} then computes it)
 * @param keptUp                an open loop's keep-up verdict in the sweep file's words (yes, no, cannot_tell,
 *                              client_behind, at_cap), set by the run, which knows its schedule ({@link #withKeptUp});
 *                              null for a closed loop, sessions, or a level the rule does not judge
 */
public record RunMetrics(
        MetricsConfig config,
        List<RequestMetrics> requests,
        Map<Metric, MetricStats> stats,
        long durationNanos,
        int requestsSent,
        int requestsRecorded,
        int requestsSucceeded,
        long totalOutputTokens,
        double outputTokensPerSecond,
        double requestsPerSecond,
        TokenSourceCounts outputTokenSources,
        TokenSourceCounts inputTokenSources,
        TokenDiscrepancy tokenDiscrepancy,
        ErrorBreakdown errors,
        Optional<Goodput> goodput,
        Optional<LevelJudgement> sloVerdict,
        List<RunWarning> warnings,
        DeliveredTokens delivered,
        String keptUp) {

    private static final double NANOS_PER_SECOND = 1e9;

    public RunMetrics {
        Objects.requireNonNull(config, "config");
        requests = List.copyOf(requests);
        stats = Collections.unmodifiableMap(new EnumMap<>(stats));
        Objects.requireNonNull(outputTokenSources, "outputTokenSources");
        Objects.requireNonNull(inputTokenSources, "inputTokenSources");
        Objects.requireNonNull(tokenDiscrepancy, "tokenDiscrepancy");
        Objects.requireNonNull(errors, "errors");
        Objects.requireNonNull(goodput, "goodput");
        Objects.requireNonNull(sloVerdict, "sloVerdict");
        warnings = List.copyOf(warnings);
    }

    /** Without the delivered tokens ({@link #deliveredIn} computes them from the run). */
    public RunMetrics(MetricsConfig config, List<RequestMetrics> requests, Map<Metric, MetricStats> stats,
                      long durationNanos, int requestsSent, int requestsRecorded, int requestsSucceeded,
                      long totalOutputTokens, double outputTokensPerSecond, double requestsPerSecond,
                      TokenSourceCounts outputTokenSources, TokenSourceCounts inputTokenSources,
                      TokenDiscrepancy tokenDiscrepancy, ErrorBreakdown errors, Optional<Goodput> goodput,
                      Optional<LevelJudgement> sloVerdict, List<RunWarning> warnings) {
        this(config, requests, stats, durationNanos, requestsSent, requestsRecorded, requestsSucceeded,
                totalOutputTokens, outputTokensPerSecond, requestsPerSecond, outputTokenSources, inputTokenSources,
                tokenDiscrepancy, errors, goodput, sloVerdict, warnings, null, null);
    }

    /** Without a keep-up verdict (a closed loop, or figures merged from iterations). */
    public RunMetrics(MetricsConfig config, List<RequestMetrics> requests, Map<Metric, MetricStats> stats,
                      long durationNanos, int requestsSent, int requestsRecorded, int requestsSucceeded,
                      long totalOutputTokens, double outputTokensPerSecond, double requestsPerSecond,
                      TokenSourceCounts outputTokenSources, TokenSourceCounts inputTokenSources,
                      TokenDiscrepancy tokenDiscrepancy, ErrorBreakdown errors, Optional<Goodput> goodput,
                      Optional<LevelJudgement> sloVerdict, List<RunWarning> warnings, DeliveredTokens delivered) {
        this(config, requests, stats, durationNanos, requestsSent, requestsRecorded, requestsSucceeded,
                totalOutputTokens, outputTokensPerSecond, requestsPerSecond, outputTokenSources, inputTokenSources,
                tokenDiscrepancy, errors, goodput, sloVerdict, warnings, delivered, null);
    }

    /**
     * Computes the metrics of {@code run}, with a CLIENT_BOTTLENECK warning when its client overhead, sized against its
     * TTFT and ITL, says so ({@link RunWarnings#clientBottleneck(io.llmperf4j.model.ClientOverhead, RunMetrics)}).
     */
    public static RunMetrics of(BenchmarkRun run, MetricsConfig config) {
        return of(run, config, null);
    }

    /**
     * The same for an open loop: {@code sendLagNanos} (each measured request's actual minus intended send, by client
     * request id; null or empty for a closed loop) makes goodput and the SLO verdict judge TTFT and E2E from the
     * intended send. Every
     * other figure counts from the actual send.
     */
    public static RunMetrics of(BenchmarkRun run, MetricsConfig config, Map<String, Long> sendLagNanos) {
        return of(run, config, sendLagNanos, List.of());
    }

    /**
     * The same, with the run's warmup records: they are in no figure but the delivered tokens, which count what they
     * delivered inside the window (the window opens while the warmup's last requests still stream).
     */
    public static RunMetrics of(BenchmarkRun run, MetricsConfig config, Map<String, Long> sendLagNanos,
                                List<RequestRecord> warmupRecords) {
        return of(run, config, sendLagNanos, warmupRecords, null);
    }

    /**
     * The same for a sweep's level read with the levels before it ({@code earlier}: the server had answered one of
     * them, {@link ServerGone.Earlier}; null for a run read alone): its errors and its REQUESTS_FAILED read its
     * refused connections as the server gone, as the sweep's verdict does.
     */
    public static RunMetrics of(BenchmarkRun run, MetricsConfig config, Map<String, Long> sendLagNanos,
                                List<RequestRecord> warmupRecords, ServerGone.Earlier earlier) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(config, "config");
        List<RequestMetrics> requests = run.records().stream()
                .map(record -> RequestMetrics.from(record, config.tokenCounting()))
                .toList();
        // one metric's values at a time, not a recorder holding every metric's
        ToLongFunction<RequestMetrics> lags = sendLagNanos == null || sendLagNanos.isEmpty() ? null
                : r -> sendLagNanos.getOrDefault(r.clientRequestId(), 0L);
        RunMetrics metrics = of(requests, MetricRecorder.statsOf(requests), run.durationNanos(), run.requestsSent(),
                run.timedOut(), config, lags, CommonFailures.of(run.records()), earlier);
        // the records' tags, which per-request metrics do not carry: warned here, before CLIENT_BOTTLENECK
        long endMarkerMissing = run.records().stream()
                .filter(r -> r.succeeded() && r.tags().endMarkerMissing()).count();
        metrics = RunWarnings.endMarkerMissing(endMarkerMissing, metrics.requestsSucceeded())
                .map(metrics::withWarning).orElse(metrics);
        metrics = streamLinesIgnored(run.records()).map(metrics::withWarning).orElse(metrics);
        // judged against the run's own TTFT and ITL, as the summary's likely_bottleneck is
        metrics = RunWarnings.clientBottleneck(run.clientOverhead(), metrics).map(metrics::withWarning).orElse(metrics);
        return metrics.withDelivered(DeliveredTokens.of(run, warmupRecords, config.tokenCounting()));
    }

    /** STREAM_LINES_IGNORED from the records' tags: the requests, their lines, the first request's first line. */
    private static Optional<RunWarning> streamLinesIgnored(List<RequestRecord> records) {
        long requests = 0;
        long lines = 0;
        String example = null;
        for (RequestRecord r : records) {
            if (r.tags().ignoredStreamLines() <= 0) continue;
            requests++;
            lines += r.tags().ignoredStreamLines();
            if (example == null) example = r.tags().ignoredStreamLine();
        }
        return RunWarnings.streamLinesIgnored(requests, records.size(), lines, example);
    }

    /** A copy carrying {@code tokens} as its delivered tokens. */
    public RunMetrics withDelivered(DeliveredTokens tokens) {
        return new RunMetrics(config, requests, stats, durationNanos, requestsSent, requestsRecorded,
                requestsSucceeded, totalOutputTokens, outputTokensPerSecond, requestsPerSecond, outputTokenSources,
                inputTokenSources, tokenDiscrepancy, errors, goodput, sloVerdict, warnings, tokens, keptUp);
    }

    /** A copy carrying an open loop's keep-up verdict ({@link #keptUp}; null: none). */
    public RunMetrics withKeptUp(String verdict) {
        return new RunMetrics(config, requests, stats, durationNanos, requestsSent, requestsRecorded,
                requestsSucceeded, totalOutputTokens, outputTokensPerSecond, requestsPerSecond, outputTokenSources,
                inputTokenSources, tokenDiscrepancy, errors, goodput, sloVerdict, warnings, delivered, verdict);
    }

    /** The delivered tokens computed with these metrics, else those of {@code run}'s records (no warmup's). */
    public DeliveredTokens deliveredIn(BenchmarkRun run) {
        return delivered != null ? delivered : DeliveredTokens.of(run, config.tokenCounting());
    }

    /**
     * A copy with {@code warning} added last (its delivered tokens kept): END_MARKER_MISSING, STREAM_LINES_IGNORED
     * and CLIENT_BOTTLENECK, the last codes raised here, in that order.
     */
    public RunMetrics withWarning(RunWarning warning) {
        List<RunWarning> all = new ArrayList<>(warnings);
        all.add(warning);
        return withWarnings(all);
    }

    /** A copy with {@code all} in place of its warnings, everything else kept (its delivered tokens, its keep-up). */
    public RunMetrics withWarnings(List<RunWarning> all) {
        return new RunMetrics(config, requests, stats, durationNanos, requestsSent, requestsRecorded,
                requestsSucceeded, totalOutputTokens, outputTokensPerSecond, requestsPerSecond, outputTokenSources,
                inputTokenSources, tokenDiscrepancy, errors, goodput, sloVerdict, all, delivered, keptUp);
    }

    /**
     * Computes the metrics from per-request metrics and a recorder holding their successful values (or a merge of
     * several recorders, when the caller combines iterations).
     */
    public static RunMetrics of(List<RequestMetrics> requests, MetricRecorder recorder, long durationNanos,
                                int requestsSent, boolean timedOut, MetricsConfig config) {
        return of(requests, recorder.stats(), durationNanos, requestsSent, timedOut, config, null,
                CommonFailures.ofCodes(requests), null);
    }

    private static RunMetrics of(List<RequestMetrics> requests, Map<Metric, MetricStats> stats, long durationNanos,
                                 int requestsSent, boolean timedOut, MetricsConfig config,
                                 ToLongFunction<RequestMetrics> sendLagNanos,
                                 Map<FailureKind, String> commonFailures, ServerGone.Earlier earlier) {
        int succeeded = (int) requests.stream().filter(RequestMetrics::succeeded).count();
        long outputTokens = requests.stream()
                .filter(RequestMetrics::succeeded)
                .filter(r -> r.outputTokens().isPresent())
                .mapToLong(r -> r.outputTokens().getAsInt())
                .sum();
        double seconds = durationNanos / NANOS_PER_SECOND;
        double tokensPerSecond = durationNanos > 0 ? outputTokens / seconds : Double.NaN;
        double requestsPerSecond = durationNanos > 0 ? succeeded / seconds : Double.NaN;
        TokenDiscrepancy discrepancy = TokenDiscrepancy.of(requests, config.tokenCounting());
        Optional<Goodput> goodput = config.optionalSlo()
                .map(slo -> Goodput.of(slo, requests, sendLagNanos, durationNanos));
        Optional<LevelJudgement> verdict = RunVerdict.of(config.judgedObjectives(), requests, sendLagNanos);
        return new RunMetrics(config, requests, stats, durationNanos, requestsSent, requests.size(),
                succeeded, outputTokens, tokensPerSecond, requestsPerSecond,
                TokenSourceCounts.of(requests, RequestMetrics::outputTokenSource),
                TokenSourceCounts.of(requests, RequestMetrics::inputTokenSource), discrepancy,
                ErrorBreakdown.of(requests, earlier), goodput, verdict, RunWarnings.evaluate(requests, discrepancy,
                timedOut, commonFailures, earlier));
    }

    /** The statistics of one metric. */
    public MetricStats stats(Metric metric) {
        return stats.get(metric);
    }

    /** Failed requests, cancellations included. */
    public int requestsFailed() {
        return requestsRecorded - requestsSucceeded;
    }

    /** A recorder holding this run's successful values, for merging with other runs or writing histogram logs. */
    public MetricRecorder recorder() {
        return MetricRecorder.of(requests);
    }

    /** Whether a warning with {@code code} was raised. */
    public boolean hasWarning(WarningCode code) {
        return warnings.stream().anyMatch(w -> w.code() == code);
    }
}
