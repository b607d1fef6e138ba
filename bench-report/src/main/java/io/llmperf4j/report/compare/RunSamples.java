package io.llmperf4j.report.compare;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.csv.RequestCsvReader;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One run's per-request metrics, the input of {@link RunComparison}: from memory, or read back from a results
 * folder's {@code requests.jsonl} (every field, content event times included) or, without one, the per-request CSV
 * that {@link io.llmperf4j.report.csv.RequestCsvWriter} writes ({@code <base>_requests.csv}). Metrics come from
 * {@link RequestMetrics#from}, so a comparison uses exactly the summary's definitions. The CSV has no event
 * times, so a run read from it has no ITL samples and its ITL rules are not evaluated. A scheduled run's send lags
 * (the journal's {@code send_lag_nanos}, the CSV's {@code send_lag_s}) come along, for the metrics from the intended
 * send ({@link CompareMetric#needsSendLag()}).
 *
 * <p>Run-level rates divide by the run's own window, its summary's {@code run.duration_s} ({@link RunWindow}), as the
 * run's own throughput does, so a run compared with itself shows its own figures. Without a summary of the same
 * requests (a CSV or journal alone, a run killed before its summary) they divide by the <em>request window</em>:
 * from the first send to the last response end, both known per request (start wall-clock time + E2E), a few
 * milliseconds shorter than the run's (its clock starts before the first send).
 */
public final class RunSamples {

    private static final String CSV_SUFFIX = "_requests.csv";
    private static final String JSONL_SUFFIX = ".jsonl";
    /** {@link #source()} of samples read from a per-request CSV. */
    public static final String CSV_SOURCE = "the per-request CSV (no event times, so no ITL)";

    private final String label;
    private final String source;
    private final List<RequestMetrics> requests;
    private final long windowNanos;
    /** Each request's send lag by client request id; empty for a run without a schedule (a plain closed loop). */
    private final Map<String, Long> sendLagNanos;

    /** The planned requests a load worker that left never sent, from the run's summary; null when none. */
    private final UnsentLoad unsentLoad;

    private RunSamples(String label, String source, List<RequestMetrics> requests, Map<String, Long> sendLagNanos) {
        this(label, source, requests, sendLagNanos, null);
    }

    private RunSamples(String label, String source, List<RequestMetrics> requests, Map<String, Long> sendLagNanos,
                       UnsentLoad unsentLoad) {
        this(label, source, List.copyOf(requests), sendLagNanos, unsentLoad, window(requests));
    }

    private RunSamples(String label, String source, List<RequestMetrics> requests, Map<String, Long> sendLagNanos,
                       UnsentLoad unsentLoad, long windowNanos) {
        this.label = Objects.requireNonNull(label, "label");
        this.source = Objects.requireNonNull(source, "source");
        this.requests = List.copyOf(requests);
        this.windowNanos = windowNanos;
        this.sendLagNanos = Map.copyOf(sendLagNanos);
        this.unsentLoad = unsentLoad;
    }

    /** These samples of a run that {@code unsent} says a lost load worker left partly unsent. */
    public RunSamples withUnsentLoad(UnsentLoad unsent) {
        return new RunSamples(label, source, requests, sendLagNanos, unsent, windowNanos);
    }

    /** These samples with the run's own window (its duration, ns) as the rates' denominator. */
    public RunSamples withRunWindow(long runWindowNanos) {
        if (runWindowNanos <= 0) throw new IllegalArgumentException("window " + runWindowNanos + " ns must be > 0");
        return new RunSamples(label, source, requests, sendLagNanos, unsentLoad, runWindowNanos);
    }

    /**
     * The planned requests a load worker that left the cluster mid-run never sent (its summary's
     * {@code distributed.workers[].requests_not_sent}); empty when none, or when the run has no summary.
     */
    public Optional<UnsentLoad> unsentLoad() {
        return Optional.ofNullable(unsentLoad);
    }

    /** Samples from per-request metrics already computed. */
    public static RunSamples of(String label, List<RequestMetrics> requests) {
        return of(label, requests, Map.of());
    }

    /**
     * Samples of a scheduled run: {@code sendLagNanos} holds each request's send lag (actual minus intended send, ns)
     * by client request id, as {@code requests.jsonl}'s {@code send_lag_nanos}.
     */
    public static RunSamples of(String label, List<RequestMetrics> requests, Map<String, Long> sendLagNanos) {
        return new RunSamples(label, "memory", requests, sendLagNanos);
    }

    /** Samples of an in-memory run (rates over the request window, as its CSV alone gives). */
    public static RunSamples of(String label, BenchmarkRun run, TokenCounting counting) {
        return new RunSamples(label, "memory", run.records().stream().map(r -> RequestMetrics.from(r, counting))
                .toList(), Map.of());
    }

    /**
     * Reads a results directory, a per-request CSV or a {@code requests.jsonl}. From a directory: its
     * {@code requests.jsonl} when it holds the same requests as its single {@code *_requests.csv} (a journal left
     * by a later run in the same folder does not), else that CSV; the journal alone when there is no CSV (a run
     * killed before its end). The label is the directory's name (or the
     * file's, for a file).
     *
     * @throws IOException naming the file, line and column of anything malformed, or listing the candidates when a
     *                     directory holds none or several CSV files
     */
    public static RunSamples read(Path csvFileOrResultsDir, TokenCounting counting) throws IOException {
        RunSamples samples = readRecords(csvFileOrResultsDir, counting);
        Path dir = Files.isDirectory(csvFileOrResultsDir) ? csvFileOrResultsDir
                : csvFileOrResultsDir.toAbsolutePath().getParent();
        Optional<UnsentLoad> unsent;
        OptionalLong runWindow;
        try {
            Optional<JsonNode> summary = dir == null ? Optional.empty() : StoppedRuns.summaryIn(dir);
            unsent = summary.flatMap(UnsentLoad::of);
            runWindow = summary.map(s -> RunWindow.ofSummary(s, samples.recorded())).orElse(OptionalLong.empty());
        } catch (IOException | RuntimeException e) {
            // an unreadable summary leaves the records to compare, as StoppedRuns does
            unsent = Optional.empty();
            runWindow = OptionalLong.empty();
        }
        RunSamples windowed = runWindow.isPresent() ? samples.withRunWindow(runWindow.getAsLong()) : samples;
        return unsent.map(windowed::withUnsentLoad).orElse(windowed);
    }

    private static RunSamples readRecords(Path csvFileOrResultsDir, TokenCounting counting) throws IOException {
        if (Files.isRegularFile(csvFileOrResultsDir)
                && csvFileOrResultsDir.getFileName().toString().endsWith(JSONL_SUFFIX)) {
            return fromRecords(csvFileOrResultsDir.getFileName().toString(), RequestJournal.FILE_NAME,
                    RequestJournal.read(csvFileOrResultsDir), counting, RequestJournal.readSendLags(csvFileOrResultsDir));
        }
        Path csv = csvFileOrResultsDir;
        String label;
        if (Files.isDirectory(csvFileOrResultsDir)) {
            List<Path> found;
            try (Stream<Path> files = Files.list(csvFileOrResultsDir)) {
                found = files.filter(p -> p.getFileName().toString().endsWith(CSV_SUFFIX) && Files.isRegularFile(p))
                        .sorted()
                        .toList();
            }
            label = csvFileOrResultsDir.getFileName() == null ? csvFileOrResultsDir.toString()
                    : csvFileOrResultsDir.getFileName().toString();
            Path journal = csvFileOrResultsDir.resolve(RequestJournal.FILE_NAME);
            if (found.isEmpty() && Files.isRegularFile(journal)) {
                // a run killed before its end leaves only the journal
                return fromRecords(label, RequestJournal.FILE_NAME, RequestJournal.read(journal), counting,
                        RequestJournal.readSendLags(journal));
            }
            if (found.isEmpty()) {
                throw new IOException("no *" + CSV_SUFFIX + " in " + csvFileOrResultsDir
                        + ": llmperf4j writes <model>_<in>_<out>" + CSV_SUFFIX + " beside the summary files");
            }
            if (found.size() > 1) {
                throw new IOException(found.size() + " files *" + CSV_SUFFIX + " in " + csvFileOrResultsDir + " ("
                        + String.join(", ", found.stream().map(p -> p.getFileName().toString()).toList())
                        + "): pass the CSV file itself");
            }
            csv = found.get(0);
            if (Files.isRegularFile(journal)) {
                List<RequestRecord> fromCsv = RequestCsvReader.read(csv);
                List<RequestRecord> fromJournal = RequestJournal.read(journal);
                if (ids(fromCsv).equals(ids(fromJournal)) && fromCsv.size() == fromJournal.size()) {
                    return fromRecords(label, RequestJournal.FILE_NAME, fromJournal, counting,
                            RequestJournal.readSendLags(journal));
                }
            }
        } else if (Files.isRegularFile(csvFileOrResultsDir)) {
            label = csvFileOrResultsDir.getFileName().toString();
        } else {
            throw new IOException("no such results directory or CSV file: " + csvFileOrResultsDir);
        }
        try (Reader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
            return fromRecords(label, CSV_SOURCE, RequestCsvReader.read(reader, csv.toString()), counting,
                    RequestCsvReader.readSendLags(csv));
        }
    }

    /** Reads per-request CSV text; {@code source} names it in error messages. */
    public static RunSamples readCsv(Reader reader, String label, TokenCounting counting, String source)
            throws IOException {
        return fromRecords(label, CSV_SOURCE, RequestCsvReader.read(reader, source), counting, Map.of());
    }

    private static RunSamples fromRecords(String label, String source, List<RequestRecord> records,
                                          TokenCounting counting, Map<String, Long> sendLagNanos) {
        List<RequestMetrics> requests = new ArrayList<>(records.size());
        for (RequestRecord record : records) requests.add(RequestMetrics.from(record, counting));
        return new RunSamples(label, source, requests, sendLagNanos);
    }

    private static Set<String> ids(List<RequestRecord> records) {
        Set<String> ids = new HashSet<>();
        for (RequestRecord r : records) ids.add(r.clientRequestId());
        return ids;
    }

    /** The run's name in reports. */
    public String label() {
        return label;
    }

    /** Where the records came from: "memory", "requests.jsonl" or {@link #CSV_SOURCE}. */
    public String source() {
        return source;
    }

    /** Every recorded request, failures included. */
    public List<RequestMetrics> requests() {
        return requests;
    }

    /**
     * True when the run's records carry send lags: a scheduled run (an open loop, or sessions), whose TTFT and E2E
     * from the intended send differ from those from the actual send.
     */
    public boolean hasSendLags() {
        return !sendLagNanos.isEmpty();
    }

    /**
     * The rates' denominator, in ns: the run's own window when known (its summary's duration), else first send to
     * last response end; 0 without either.
     */
    public long windowNanos() {
        return windowNanos;
    }

    /** Recorded requests. */
    public int recorded() {
        return requests.size();
    }

    /**
     * The failed requests by what they point at ({@link FailureCause}, as the run's REQUESTS_FAILED warning counts
     * them), in the enum's order; empty when none failed.
     */
    public Map<FailureCause, Integer> failureCauses() {
        Map<FailureCause, Integer> causes = new EnumMap<>(FailureCause.class);
        for (FailureCause cause : RequestMetrics.failureCauses(requests)) {
            if (cause != null) causes.merge(cause, 1, Integer::sum);
        }
        return causes;
    }

    /** Successful requests. */
    public int succeeded() {
        return (int) requests.stream().filter(RequestMetrics::succeeded).count();
    }

    /**
     * The defined values of a per-request metric over the successful requests, in its display unit, sorted;
     * for a {@linkplain CompareMetric#pooled() pooled} metric every sample of every successful request.
     *
     * @throws IllegalArgumentException for a run-level metric
     */
    public double[] sortedValues(CompareMetric metric) {
        if (!metric.perRequest()) throw new IllegalArgumentException(metric.key() + " is one value per run");
        if (metric.pooled()) return pooledValues(metric).sorted().clone();
        Stream<RequestMetrics> ok = requests.stream().filter(RequestMetrics::succeeded);
        if (metric.needsSendLag()) {
            // a request without a lag (none recorded for it) has no intended send to count from
            ok = ok.filter(r -> sendLagNanos.containsKey(r.clientRequestId()));
        }
        double[] values = switch (metric) {
            case TTFT -> ok.filter(r -> r.ttftNanos().isPresent()).mapToDouble(r -> r.ttftNanos().getAsLong() / 1e6)
                    .toArray();
            case TPOT -> ok.filter(r -> r.tpotNanos().isPresent()).mapToDouble(r -> r.tpotNanos().getAsDouble() / 1e6)
                    .toArray();
            case E2E -> ok.mapToDouble(r -> r.e2eNanos() / 1e6).toArray();
            case SEND_LAG -> ok.mapToDouble(r -> lag(r) / 1e6).toArray();
            case TTFT_FROM_INTENDED -> ok.filter(r -> r.ttftNanos().isPresent())
                    .mapToDouble(r -> (lag(r) + r.ttftNanos().getAsLong()) / 1e6).toArray();
            case E2E_FROM_INTENDED -> ok.mapToDouble(r -> (lag(r) + r.e2eNanos()) / 1e6).toArray();
            case REQUEST_TPS -> ok.filter(r -> r.outputTokensPerSecond().isPresent())
                    .mapToDouble(r -> r.outputTokensPerSecond().getAsDouble()).toArray();
            default -> throw new AssertionError(metric);
        };
        Arrays.sort(values);
        return values;
    }

    private long lag(RequestMetrics r) {
        return sendLagNanos.get(r.clientRequestId());
    }

    /**
     * The samples of a pooled metric (ITL per event or per token, in ms) over the successful requests, each
     * tagged with its request.
     *
     * @throws IllegalArgumentException for a metric that is not pooled
     */
    PooledSample pooledValues(CompareMetric metric) {
        if (!metric.pooled()) throw new IllegalArgumentException(metric.key() + " is not pooled");
        double[][] perRequest = requests.stream().filter(RequestMetrics::succeeded).map(r -> switch (metric) {
            case ITL -> Arrays.stream(r.itlNanos()).mapToDouble(v -> v / 1e6).toArray();
            case ITL_PER_TOKEN -> Arrays.stream(r.itlPerTokenNanos()).map(v -> v / 1e6).toArray();
            default -> throw new AssertionError(metric);
        }).toArray(double[][]::new);
        return PooledSample.of(perRequest);
    }

    /**
     * The value of a run-level metric; NaN when undefined (no requests, or a zero window).
     *
     * @throws IllegalArgumentException for a per-request metric
     */
    public double runValue(CompareMetric metric) {
        if (metric.perRequest()) throw new IllegalArgumentException(metric.key() + " is a per-request metric");
        double seconds = windowNanos / 1e9;
        return switch (metric) {
            case OUTPUT_THROUGHPUT -> windowNanos > 0 ? requests.stream()
                    .filter(r -> r.succeeded() && r.outputTokens().isPresent())
                    .mapToLong(r -> r.outputTokens().getAsInt()).sum() / seconds : Double.NaN;
            case REQUEST_THROUGHPUT -> windowNanos > 0 ? succeeded() / seconds : Double.NaN;
            case ERROR_RATE -> requests.isEmpty() ? Double.NaN : (double) (recorded() - succeeded()) / recorded();
            default -> throw new AssertionError(metric);
        };
    }

    private static long window(List<RequestMetrics> requests) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (RequestMetrics r : requests) {
            long start = r.startEpochMicros() * 1_000L;
            first = Math.min(first, start);
            last = Math.max(last, start + Math.max(0, r.e2eNanos()));
        }
        return requests.isEmpty() ? 0 : last - first;
    }
}
