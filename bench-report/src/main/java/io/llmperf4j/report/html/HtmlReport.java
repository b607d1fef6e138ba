package io.llmperf4j.report.html;

import io.llmperf4j.model.disk.WholeFiles;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.ResultsFolder;
import io.llmperf4j.report.summary.RunEnvironment;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * llmperf4j's HTML report: one self-contained HTML5 file, {@code <base>_report.html} beside the other result
 * files. Inline CSS, charts as inline SVG, no script, no font, image or link from elsewhere, so it can be mailed,
 * archived or opened offline. It is also well-formed XML.
 *
 * <p>Contents, in order: the model, endpoint (without credentials) and window; the run's warnings; key numbers;
 * the test conditions (every run parameter, the tool version, JVM, OS and CPUs); the summary table (metric, n, p50,
 * p90, p99, mean, unit, as {@code SummaryConsoleReport}); TTFT and E2E empirical CDFs; output tokens/s and requests
 * in flight over time (1-s buckets); TTFT per request over time; the server's own metrics on the same time axis
 * when they were scraped; errors by kind and code with example messages; how the numbers were computed. A sweep,
 * iterations and a comparison of models have pages of their own ({@link #fromResultsDir}).
 *
 * <p>The table, key numbers and warnings come from the summary ({@code SummaryDocument}), so they equal
 * {@code <base>_llmperf4j_summary.json}; the charts and the error table from the request records. The report can
 * be rebuilt from a results directory alone ({@link #fromResultsDir}), as Gatling's report is from its log.
 */
public final class HtmlReport {

    /** The report's file name ends with this: {@code <base>_report.html}. */
    public static final String FILE_SUFFIX = "_report.html";

    private HtmlReport() {
    }

    /** {@code <base>_report.html}, base as llmperf's files, e.g. {@code meta-llama-Llama-2-7b-chat-hf_550_150_report.html}. */
    public static String fileName(BenchmarkSettings settings) {
        return LlmperfFileNames.baseName(settings) + FILE_SUFFIX;
    }

    /** The page of a run in memory, without a sweep. */
    public static String render(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment) {
        return render(ReportData.of(run, metrics, toolVersion, environment), HtmlReportOptions.DEFAULT);
    }

    /** The page of a run in memory. */
    public static String render(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                                HtmlReportOptions options) {
        return render(ReportData.of(run, metrics, toolVersion, environment), options);
    }

    /** The page of {@code data}. */
    public static String render(ReportData data, HtmlReportOptions options) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(options, "options");
        return new HtmlPage(data, options).render();
    }

    /**
     * Writes the page of {@code data} to {@code file} (replacing it) as it is made, section by section, without
     * holding the whole page in memory; the bytes are those of {@link #render(ReportData, HtmlReportOptions)}.
     */
    public static void write(ReportData data, HtmlReportOptions options, Path file) throws IOException {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(options, "options");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            new HtmlPage(data, options).render(out);
        }
    }

    /**
     * Renders a run in memory and writes it into {@code resultsDir} (created if missing) as {@link #fileName};
     * returns the file.
     */
    public static Path write(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                             HtmlReportOptions options, Path resultsDir) throws IOException {
        Files.createDirectories(resultsDir);
        Path file = resultsDir.resolve(fileName(run.settings()));
        write(ReportData.of(run, metrics, toolVersion, environment), options, file);
        return file;
    }

    /** {@link #fromResultsDir(Path, HtmlReportOptions)} with the default options. */
    public static Path fromResultsDir(Path dir) throws IOException {
        return fromResultsDir(dir, HtmlReportOptions.DEFAULT);
    }

    /**
     * Rebuilds the report from a results folder alone and writes {@code <base>_report.html} into it, replacing it;
     * returns the file. What the folder is comes from its files ({@link ResultsFolder#detect}): a run's page from
     * its summary and {@code requests.jsonl} or else {@code <base>_requests.csv} ({@link ReportData#read}); a
     * sweep's page from {@code <base>_sweep.json} and each level's summary ({@link SweepData#read}), and for a sweep
     * run with iterations each level's page of iterations first ({@link #writeLevelIterationPages}); the page of
     * iterations from {@code <base>_iterations.csv}; the page of several models from {@code comparison.csv}.
     * {@code dirOrSummary} may also be one of those files itself (a run's summary, for a folder holding several).
     *
     * @throws IOException naming the missing or malformed file
     */
    public static Path fromResultsDir(Path dirOrSummary, HtmlReportOptions options) throws IOException {
        ResultsFolder folder = ResultsFolder.detect(dirOrSummary);
        switch (folder.kind()) {
            case SWEEP -> {
                Path file = folder.dir().resolve(folder.base() + FILE_SUFFIX);
                Path iterations = folder.dir().resolve(folder.base() + IterationsFile.SUFFIX);
                if (Files.isRegularFile(iterations)) {
                    // first, so that the sweep's page finds them to link
                    writeLevelIterationPages(folder.dir(), folder.base(), IterationsFile.read(iterations),
                            file.getFileName().toString());
                }
                return writePage(file, new SweepPage(SweepData.read(folder.file())).render());
            }
            case ITERATIONS -> {
                Path file = folder.dir().resolve(folder.base() + FILE_SUFFIX);
                List<IterationsFile.Row> rows = IterationsFile.read(folder.file());
                return writePage(file, new IterationsPage(folder.base(), rows,
                        IterationsPage.readScores(folder.dir(), folder.base(), rows), null,
                        SimulatedNotice.simulatedIterations(folder.dir(), folder.base())).render());
            }
            case COMPARISON -> {
                Path file = folder.dir().resolve("comparison" + FILE_SUFFIX);
                return writePage(file, new ComparisonPage(ComparisonData.read(folder.file())).render());
            }
            case RUN -> {
                return runFromResultsDir(dirOrSummary, options);
            }
            default -> throw new AssertionError(folder.kind());
        }
    }

    /**
     * A sweep run with iterations keeps no folder per level: each level's page of iterations, as a folder of
     * iterations gets, is written beside the sweep's files ({@link IterationsPage#levelFileName}); returns them.
     */
    static List<Path> writeLevelIterationPages(Path dir, String base, List<IterationsFile.Row> rows,
                                               String sweepPage) throws IOException {
        Map<String, IterationsPage.JmhScore> scores = IterationsPage.readScores(dir, base, rows);
        Map<String, List<IterationsFile.Row>> byLevel = new LinkedHashMap<>();
        for (IterationsFile.Row r : rows) {
            byLevel.computeIfAbsent(IterationsPage.levelFileName(base, r.loadUnit(), r.level()), k -> new ArrayList<>())
                    .add(r);
        }
        List<Path> pages = new ArrayList<>();
        boolean simulated = SimulatedNotice.simulatedIterations(dir, base);
        for (Map.Entry<String, List<IterationsFile.Row>> level : byLevel.entrySet()) {
            pages.add(writePage(dir.resolve(level.getKey()),
                    new IterationsPage(base, level.getValue(), scores, sweepPage, simulated).render()));
        }
        return pages;
    }

    /**
     * Writes {@code html} to {@code file} whole or not at all ({@link WholeFiles#write}): a full disk leaves no
     * cut page under the page's name, nor an earlier page cut.
     */
    private static Path writePage(Path file, String html) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        String name = file.getFileName().toString();
        WholeFiles.write(dir, into -> {
            Path staged = into.resolve(name);
            Files.writeString(staged, html, StandardCharsets.UTF_8);
            return List.of(staged);
        });
        return file;
    }

    private static Path runFromResultsDir(Path dirOrSummary, HtmlReportOptions options) throws IOException {
        ReportData data = ReportData.read(dirOrSummary);
        Path summaryFile = Files.isRegularFile(dirOrSummary) ? dirOrSummary : null;
        String base;
        Path dir;
        if (summaryFile != null) {
            base = ReportData.baseName(summaryFile);
            dir = summaryFile.toAbsolutePath().getParent();
        } else {
            dir = dirOrSummary;
            base = summaryBase(dirOrSummary);
        }
        Path file = dir.resolve(base + FILE_SUFFIX);
        WholeFiles.write(file.toAbsolutePath().getParent(), into -> { // whole or absent, as writePage
            Path staged = into.resolve(file.getFileName().toString());
            write(data, options, staged);
            return List.of(staged);
        });
        return file;
    }

    private static String summaryBase(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(ReportData.SUMMARY_SUFFIX))
                    .sorted()
                    .findFirst()
                    .map(n -> n.substring(0, n.length() - ReportData.SUMMARY_SUFFIX.length()))
                    .orElseThrow(() -> new IOException("no *" + ReportData.SUMMARY_SUFFIX + " in " + dir));
        }
    }
}
