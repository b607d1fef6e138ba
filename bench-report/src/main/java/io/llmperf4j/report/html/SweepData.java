package io.llmperf4j.report.html;

import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.SweepFiles;
import io.llmperf4j.report.summary.SummaryDocument;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What the sweep page is drawn from, read from a sweep's folder alone: {@code <base>_sweep.json} (the plan, the
 * verdict and one row per level, as the run wrote them) and, for each level, the summary in its own folder (the
 * p50/p90/p99 of every latency). A level without a summary (iterations keep no per-request files) has only the
 * sweep row's TTFT and E2E p50/p90.
 *
 * @param sweep  the sweep file's content
 * @param levels one per row of the sweep file, in sweep order
 * @param dir    the sweep's folder
 * @param base   {@code <base>} of the sweep's files
 */
public record SweepData(SweepFiles.Document sweep, List<Level> levels, Path dir, String base) {

    /** The load unit of a rate sweep (an open loop), whose rows count TTFT and E2E from the intended send. */
    static final String OPEN_LOOP_UNIT = "req/s";
    /** A rate sweep of sessions' (--turns): its levels start sessions; an open loop too. */
    static final String SESSIONS_UNIT = "sessions/s";

    /** Whether {@code loadUnit} is a rate's, an open loop's (req/s, or sessions/s for a rate sweep of sessions). */
    static boolean openLoopUnit(String loadUnit) {
        return OPEN_LOOP_UNIT.equals(loadUnit) || SESSIONS_UNIT.equals(loadUnit);
    }

    /** The latencies drawn against load, each as p50, p90 and p99. */
    static final List<Metric> LATENCIES = List.of(Metric.TTFT, Metric.TPOT, Metric.ITL, Metric.E2E_LATENCY);

    /**
     * One level.
     *
     * @param row        its row of the sweep file
     * @param summary    its summary, or null when its folder has none
     * @param reportHref its own report relative to the sweep's folder (a sweep of iterations': its page of
     *                   iterations), or null when there is none
     */
    public record Level(SweepFiles.Level row, SummaryDocument summary, String reportHref) {

        /** The statistics of {@code metric} from the level's summary, or null. */
        SummaryDocument.StatsJson stats(Metric metric) {
            return summary == null ? null : summary.metrics().get(metric.jsonKey());
        }

        /** {@code metric}'s percentile {@code p} (50, 90 or 99) in ms, NaN when unknown. */
        double percentileMs(Metric metric, int p) {
            SummaryDocument.StatsJson s = stats(metric);
            if (s == null) {
                // an open loop's row counts from the intended send: not the summary's figures
                if (openLoopUnit(row.loadUnit())) return Double.NaN;
                // the sweep row keeps TTFT and E2E p50/p90 for levels without a summary
                Double v = switch (metric) {
                    case TTFT -> p == 50 ? row.ttftP50Ms() : p == 90 ? row.ttftP90Ms() : null;
                    case E2E_LATENCY -> p == 50 ? row.e2eP50Ms() : p == 90 ? row.e2eP90Ms() : null;
                    default -> null;
                };
                return v == null ? Double.NaN : v;
            }
            Double v = switch (p) {
                case 50 -> s.p50();
                case 90 -> s.p90();
                case 99 -> s.p99();
                default -> throw new IllegalArgumentException("percentile " + p + " is not drawn");
            };
            return v == null ? Double.NaN : v;
        }

        double outputTokensPerSecond() {
            return row.outputTokS() == null ? Double.NaN : row.outputTokS();
        }
    }

    public SweepData {
        Objects.requireNonNull(sweep, "sweep");
        levels = List.copyOf(levels);
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(base, "base");
    }

    /**
     * Reads the sweep of {@code sweepJson} and each level's summary from the folder its row names.
     *
     * @throws IOException naming the file that is missing or malformed
     */
    public static SweepData read(Path sweepJson) throws IOException {
        SweepFiles.Document doc = SweepFiles.read(sweepJson);
        Path dir = sweepJson.toAbsolutePath().getParent();
        String name = sweepJson.getFileName().toString();
        String base = name.substring(0, name.length() - SweepFiles.JSON_SUFFIX.length());
        List<Level> levels = new ArrayList<>();
        for (SweepFiles.Level row : doc.levels()) {
            SummaryDocument summary = null;
            String href = null;
            if (row.resultsDir() != null && !row.resultsDir().isEmpty()) {
                Path levelDir = dir.resolve(row.resultsDir());
                summary = ReportData.readSummaryIn(levelDir);
                if (summary != null) {
                    String summaryName = ReportData.summaryFileIn(levelDir).getFileName().toString();
                    String report = ReportData.baseName(Path.of(summaryName)) + HtmlReport.FILE_SUFFIX;
                    if (Files.isRegularFile(levelDir.resolve(report))) href = row.resultsDir() + "/" + report;
                }
            }
            if (href == null && Files.isRegularFile(dir.resolve(base + IterationsFile.SUFFIX))) {
                // a sweep of iterations: the level's page of iterations beside the sweep's, when it was built
                String page = IterationsPage.levelFileName(base, row.loadUnit(), Html.data(row.level()));
                if (Files.isRegularFile(dir.resolve(page))) href = page;
            }
            levels.add(new Level(row, summary, href));
        }
        return new SweepData(doc, levels, dir, base);
    }

    /** The index of the level the verdict names, or empty. */
    OptionalInt indexOf(Double level) {
        if (level == null) return OptionalInt.empty();
        for (int i = 0; i < levels.size(); i++) {
            if (Double.compare(levels.get(i).row().level(), level) == 0) return OptionalInt.of(i);
        }
        return OptionalInt.empty();
    }

    OptionalInt saturationIndex() {
        return indexOf(sweep.verdict().saturationLevel());
    }

    /** The knee: the last level that grew (or kept up) before the saturation point; empty without one. */
    OptionalInt kneeIndex() {
        return indexOf(sweep.verdict().kneeLevel());
    }

    OptionalInt ttftRedLineIndex() {
        return indexOf(sweep.verdict().ttftRedLineLevel());
    }

    OptionalInt firstFailingIndex() {
        return indexOf(sweep.verdict().firstFailingLevel());
    }

    /**
     * A sweep run with iterations: {@code <base>_iterations.csv} beside the sweep file. Its levels keep no summary;
     * each sweep row pools the level's measurement iterations over every fork.
     */
    boolean ofIterations() {
        return Files.isRegularFile(dir.resolve(base + IterationsFile.SUFFIX));
    }

    /**
     * Whether the sweep ran against the embedded simulated server, as its levels' summaries say (a sweep of
     * iterations: its {@code <base>_jmh.json}); false when no file records it.
     */
    boolean simulated() {
        return SimulatedNotice.anySimulated(levels.stream().map(Level::summary).toList())
                || SimulatedNotice.simulatedIterations(dir, base);
    }

    /** Whether any level has a summary of its own (none in a sweep of iterations). */
    boolean anySummary() {
        return levels.stream().anyMatch(l -> l.summary() != null);
    }

    /** A rate sweep: open-loop levels, whose sweep rows count TTFT and E2E from the intended send. */
    boolean openLoop() {
        return openLoopUnit(sweep.loadUnit());
    }

    /** The unit of the load axis, e.g. "concurrency", "req/s" or "sessions/s". */
    String loadUnit() {
        return sweep.loadUnit() == null ? "" : sweep.loadUnit();
    }
}
