package io.llmperf4j.report.html;

import io.llmperf4j.report.csv.RequestCsvReader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.output.OpenLoopFile;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.servermetrics.csv.ServerMetricsCsvReader;
import io.llmperf4j.servermetrics.csv.ServerMetricsCsvWriter;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What the HTML report is drawn from: the summary (test conditions, statistics, warnings, exactly as in
 * {@code <base>_llmperf4j_summary.json}) and every request record (for the charts and the error table).
 *
 * @param summary       the run's summary document
 * @param records       every recorded request, failures included
 * @param tokenCounting how output tokens were counted (the summary's {@code token_counting})
 * @param source        where the records came from
 * @param recordsFile   the file the records were read from, or null for a run in memory
 * @param serverTimeline every scrape of the server's metrics during the run ({@code <base>_server_metrics.csv}),
 *                       or null when they were not scraped
 * @param openLoop      an open loop's schedule and what became of it ({@code <base>_open_loop.json}), or null for a
 *                      closed loop
 */
public record ReportData(SummaryDocument summary, List<RequestRecord> records, TokenCounting tokenCounting,
                         RecordSource source, Path recordsFile, ServerMetricsTimeline serverTimeline,
                         OpenLoopFile.Document openLoop) {

    /** The summary file's name ends with this: {@code <base>_llmperf4j_summary.json}. */
    public static final String SUMMARY_SUFFIX = "_llmperf4j_summary.json";
    /** The per-request CSV's name ends with this: {@code <base>_requests.csv}. */
    public static final String CSV_SUFFIX = "_requests.csv";

    private static final String SCHEMA_PREFIX = "llmperf4j.summary/";
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** Without the server's metrics. */
    public ReportData(SummaryDocument summary, List<RequestRecord> records, TokenCounting tokenCounting,
                      RecordSource source, Path recordsFile) {
        this(summary, records, tokenCounting, source, recordsFile, null, null);
    }

    /** Without an open loop's figures. */
    public ReportData(SummaryDocument summary, List<RequestRecord> records, TokenCounting tokenCounting,
                      RecordSource source, Path recordsFile, ServerMetricsTimeline serverTimeline) {
        this(summary, records, tokenCounting, source, recordsFile, serverTimeline, null);
    }

    /** This data with the server's side: its summary section and its timeline (either may be null). */
    public ReportData withServer(ServerSideSummary server, ServerMetricsTimeline timeline) {
        return new ReportData(summary.withServer(server), records, tokenCounting, source, recordsFile, timeline,
                openLoop);
    }

    /**
     * This data of a level a signal cut short ({@code signal}: "SIGINT" or "SIGTERM"; null: it was not), as its
     * summary file says it: {@code run.stopped_by}.
     */
    public ReportData withStoppedBy(String signal) {
        return new ReportData(summary.withStoppedBy(signal), records, tokenCounting, source, recordsFile,
                serverTimeline, openLoop);
    }

    /**
     * This data with a closed loop of sessions' turns never sent (the summary's {@code sessions.turns_not_sent}), as
     * the summary file says it; null: none known.
     */
    public ReportData withSessionTurnsNotSent(Integer turns) {
        return new ReportData(summary.withSessionTurnsNotSent(turns), records, tokenCounting, source, recordsFile,
                serverTimeline, openLoop);
    }

    /** This data with an open loop's figures (null for a closed loop). */
    public ReportData withOpenLoop(OpenLoopFile.Document figures) {
        return new ReportData(summary, records, tokenCounting, source, recordsFile, serverTimeline, figures);
    }

    public ReportData {
        Objects.requireNonNull(summary, "summary");
        records = List.copyOf(records);
        Objects.requireNonNull(tokenCounting, "tokenCounting");
        Objects.requireNonNull(source, "source");
    }

    /**
     * Every request through the one metric view ({@link RequestMetrics}, with the summary's token counting), in
     * record order: the charts read TTFT, E2E and tokens from here, as the summary did.
     */
    public List<RequestMetrics> requestMetrics() {
        return records.stream().map(r -> RequestMetrics.from(r, tokenCounting)).toList();
    }

    /** The data of a run in memory, its summary built as {@link SummaryJson} writes it. */
    public static ReportData of(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment) {
        return new ReportData(SummaryDocument.of(run, metrics, toolVersion, environment), run.records(),
                metrics.config().tokenCounting(), RecordSource.MEMORY, null);
    }

    /**
     * Reads a results directory: its single {@code *_llmperf4j_summary.json} and {@code requests.jsonl}, or, when
     * there is no journal, {@code <base>_requests.csv} (no event times); and {@code <base>_server_metrics.csv} and
     * {@code <base>_open_loop.json} when they are there. {@code dirOrSummary} may also be the
     * summary file itself, for a directory holding several runs. The summary may be of schema
     * {@value SummaryJson#SCHEMA}, {@value SummaryJson#SCHEMA_2} or {@value SummaryJson#SCHEMA_1}
     * ({@link SummaryJson#READABLE_SCHEMAS}).
     *
     * @throws IOException naming the missing or malformed file
     */
    public static ReportData read(Path dirOrSummary) throws IOException {
        Path summaryFile = summaryFile(dirOrSummary);
        Path dir = summaryFile.toAbsolutePath().getParent();
        SummaryDocument summary = readSummary(summaryFile);
        TokenCounting counting = summary.tokenCounting() == null ? TokenCounting.DEFAULT
                : new TokenCounting(summary.tokenCounting().clientSpecialTokensSubtracted(),
                summary.tokenCounting().preferServerUsage());
        Path journal = dir.resolve(RequestJournal.FILE_NAME);
        Path serverCsv = ServerMetricsCsvWriter.fileFor(dir, baseName(summaryFile));
        ServerMetricsTimeline server = Files.isRegularFile(serverCsv) ? ServerMetricsCsvReader.read(serverCsv) : null;
        Path openLoopFile = OpenLoopFile.fileFor(dir, baseName(summaryFile));
        OpenLoopFile.Document openLoop = Files.isRegularFile(openLoopFile) ? OpenLoopFile.read(openLoopFile) : null;
        if (Files.isRegularFile(journal)) {
            return new ReportData(summary, RequestJournal.read(journal), counting, RecordSource.JOURNAL, journal,
                    server, openLoop);
        }
        Path csv = dir.resolve(baseName(summaryFile) + CSV_SUFFIX);
        if (Files.isRegularFile(csv)) {
            return new ReportData(summary, RequestCsvReader.read(csv), counting, RecordSource.CSV, csv, server,
                    openLoop);
        }
        throw new IOException("no request records beside " + summaryFile + ": neither " + journal + " nor " + csv
                + " exists; the report needs one of them");
    }

    /**
     * The summary of the one run in {@code dir}, or null when it has none (a level of iterations, or one killed
     * before its files were written).
     *
     * @throws IOException naming the file when a summary is there but unreadable, or when there are several
     */
    public static SummaryDocument readSummaryIn(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return null;
        Path file;
        try {
            file = summaryFile(dir);
        } catch (IOException e) {
            try (Stream<Path> files = Files.list(dir)) {
                if (files.noneMatch(p -> p.getFileName().toString().endsWith(SUMMARY_SUFFIX))) return null;
            }
            throw e;
        }
        return readSummary(file);
    }

    /** The summary file of the one run in {@code dir}. */
    static Path summaryFileIn(Path dir) throws IOException {
        return summaryFile(dir);
    }

    /** {@code <base>} of a summary file: its name without {@value #SUMMARY_SUFFIX} (or without ".json"). */
    static String baseName(Path summaryFile) {
        String name = summaryFile.getFileName().toString();
        if (name.endsWith(SUMMARY_SUFFIX)) return name.substring(0, name.length() - SUMMARY_SUFFIX.length());
        return name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
    }

    private static Path summaryFile(Path dirOrSummary) throws IOException {
        if (Files.isRegularFile(dirOrSummary)) return dirOrSummary;
        if (!Files.isDirectory(dirOrSummary)) {
            throw new IOException("no such results directory or summary file: " + dirOrSummary);
        }
        List<Path> found;
        try (Stream<Path> files = Files.list(dirOrSummary)) {
            found = files.filter(p -> p.getFileName().toString().endsWith(SUMMARY_SUFFIX) && Files.isRegularFile(p))
                    .sorted()
                    .toList();
        }
        if (found.isEmpty()) {
            throw new IOException("no *" + SUMMARY_SUFFIX + " in " + dirOrSummary + ": the report needs llmperf4j's "
                    + "summary file, written beside requests.jsonl at the end of a run");
        }
        if (found.size() > 1) {
            throw new IOException(found.size() + " files *" + SUMMARY_SUFFIX + " in " + dirOrSummary + " ("
                    + String.join(", ", found.stream().map(p -> p.getFileName().toString()).toList())
                    + "): pass the summary file itself");
        }
        return found.get(0);
    }

    private static SummaryDocument readSummary(Path file) throws IOException {
        JsonNode tree;
        try {
            tree = SummaryJson.read(file);
        } catch (JsonProcessingException e) {
            throw new IOException(file + " is not JSON: " + e.getOriginalMessage(), e);
        }
        String schema = tree.path("schema").asText("");
        if (!schema.startsWith(SCHEMA_PREFIX)) {
            throw new IOException(file + " is not a llmperf4j summary: its \"schema\" is '" + schema + "', expected '"
                    + SummaryJson.SCHEMA + "'");
        }
        if (!SummaryJson.READABLE_SCHEMAS.contains(schema)) {
            throw new IOException(file + " has schema '" + schema + "', which this llmperf4j cannot read (it reads "
                    + readable() + "); use the llmperf4j that wrote it");
        }
        try {
            return MAPPER.treeToValue(tree, SummaryDocument.class);
        } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
            String message = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new IOException(file + " does not match " + schema + ": " + message, e);
        }
    }

    /** "a, b and c": the versions this llmperf4j reads. */
    private static String readable() {
        List<String> all = SummaryJson.READABLE_SCHEMAS;
        return String.join(", ", all.subList(0, all.size() - 1)) + " and " + all.get(all.size() - 1);
    }
}
