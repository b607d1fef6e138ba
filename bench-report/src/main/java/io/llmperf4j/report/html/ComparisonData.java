package io.llmperf4j.report.html;

import io.llmperf4j.report.output.ComparisonFile;
import io.llmperf4j.report.summary.SummaryDocument;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * What the page of several models is drawn from: {@code comparison.csv} (one row per model and level) and, for each
 * row, the summary in the folder it names (p99s and the rest), where there is one.
 *
 * @param rows one per row of the file, in its order
 * @param dir  the comparison's folder
 */
public record ComparisonData(List<Row> rows, Path dir) {

    /**
     * One model at one level.
     *
     * @param row        its row of {@code comparison.csv}
     * @param summary    the summary in its folder, or null
     * @param reportHref its own report relative to the comparison's folder, or null
     */
    public record Row(ComparisonFile.Row row, SummaryDocument summary, String reportHref) {
    }

    public ComparisonData {
        rows = List.copyOf(rows);
        Objects.requireNonNull(dir, "dir");
    }

    /** Reads {@code comparison.csv} and the summary each row's folder holds. */
    public static ComparisonData read(Path csv) throws IOException {
        Path dir = csv.toAbsolutePath().getParent();
        List<Row> rows = new ArrayList<>();
        for (ComparisonFile.Row r : ComparisonFile.read(csv)) {
            SummaryDocument summary = null;
            String href = null;
            if (r.resultsDir() != null && !r.resultsDir().isEmpty()) {
                Path levelDir = dir.resolve(r.resultsDir());
                summary = ReportData.readSummaryIn(levelDir);
                if (summary != null) {
                    String name = ReportData.summaryFileIn(levelDir).getFileName().toString();
                    String report = ReportData.baseName(Path.of(name)) + HtmlReport.FILE_SUFFIX;
                    if (Files.isRegularFile(levelDir.resolve(report))) href = r.resultsDir() + "/" + report;
                }
            }
            rows.add(new Row(r, summary, href));
        }
        return new ComparisonData(rows, dir);
    }

    /** The models, in order of first appearance. */
    List<String> models() {
        LinkedHashSet<String> models = new LinkedHashSet<>();
        for (Row r : rows) models.add(r.row().model());
        return List.copyOf(models);
    }

    /** The levels, in order of first appearance. */
    List<String> levels() {
        LinkedHashSet<String> levels = new LinkedHashSet<>();
        for (Row r : rows) levels.add(r.row().level());
        return List.copyOf(levels);
    }
}
