package io.llmperf4j.report.search;

import io.llmperf4j.model.disk.WholeFiles;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.html.ReportData;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A search's files: {@code <base>_search.json} ({@link SearchDocument}), {@code <base>_search.csv} (one row per
 * level and objective) and {@code <base>_search.html} (each objective against load, with its limit).
 */
public final class SearchFiles {
    /** The columns of {@code <base>_search.csv}, in order. */
    public static final List<String> COLUMNS = List.of("index", "phase", "load", "unit", "level_passed",
            "level_resolved", "stop", "samples", "requests_completed", "duration_s", "requests_s", "output_tok_s",
            "goodput_s", "scheduled_s",
            "sent_s", "send_lag_p99_ms", "client_behind", "objective",
            "objective_samples", "misses", "estimate", "low", "high", "limit", "objective_unit", "objective_passed",
            "objective_resolved", "results_dir");

    private SearchFiles() {
    }

    /** The code of a level's warning that its page could not be rebuilt after the search. */
    public static final String PAGE_NOT_REBUILT = "LEVEL_PAGE_NOT_REBUILT";

    /**
     * Writes the three files into {@code dir}, each whole or absent ({@link WholeFiles#write}); returns them. A level
     * page that cannot be rebuilt after them is warned of on {@code System.err} ({@link #write(Path, String,
     * SearchDocument, PrintStream)}).
     *
     * @throws io.llmperf4j.report.output.ResultsNotWrittenException naming the files not written and those kept
     */
    public static List<Path> write(Path dir, String base, SearchDocument doc) throws IOException {
        return write(dir, base, doc, System.err);
    }

    /**
     * Writes the three files into {@code dir}, each whole or absent ({@link WholeFiles#write}), then rebuilds each
     * level's page; returns the three files. A level page that cannot be rebuilt keeps its first version (whole, in
     * a plain run's words) and is not silent: a warning line on {@code err} and, as that level's warning
     * ({@value #PAGE_NOT_REBUILT}), in the search's JSON and page, written again with it. A {@code doc} without
     * {@code simulated} gets it from its first level's summary that records it, once for both writes; the page's
     * notice reads it from the document.
     *
     * @throws io.llmperf4j.report.output.ResultsNotWrittenException naming the files not written and those kept
     */
    public static List<Path> write(Path dir, String base, SearchDocument given, PrintStream err) throws IOException {
        SearchDocument doc = given.simulated() != null ? given : given.withSimulated(simulated(dir, given));
        List<Path> files = WholeFiles.write(dir, into -> writeInto(into, dir, base, doc));
        List<SearchDocument.Level> levels = rebuildLevelPages(dir, base, doc);
        if (levels.equals(doc.levels())) return files;
        SearchDocument warned = doc.withLevels(levels);
        for (SearchDocument.Level level : levels) {
            level.warnings().stream().filter(w -> PAGE_NOT_REBUILT.equals(w.code()))
                    .forEach(w -> err.println("llmperf4j: warning: search level " + level.index() + " ("
                            + doc.search() + " " + SearchHtml.num(level.load()) + "): " + w.message()));
        }
        err.flush();
        return WholeFiles.write(dir, into -> writeInto(into, dir, base, warned));
    }

    /**
     * Each level's page again, now that the search's JSON beside it says what the level was: the search's limit and
     * how the search ended it (a level's page, written as the level ended, has a plain run's words: "requests to
     * complete", "still in flight when the run ended"). Returns the levels, each whose page could not be rebuilt
     * with a {@value #PAGE_NOT_REBUILT} warning (its page keeps its first version).
     */
    private static List<SearchDocument.Level> rebuildLevelPages(Path dir, String base, SearchDocument doc) {
        List<SearchDocument.Level> levels = new ArrayList<>();
        for (SearchDocument.Level level : doc.levels()) {
            String page = levelPage(dir, base, level);
            if (page == null) {
                levels.add(level);
                continue;
            }
            try {
                HtmlReport.fromResultsDir(dir.resolve(level.resultsDir()));
                levels.add(level);
            } catch (IOException | RuntimeException e) {
                String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                levels.add(level.withWarning(new SummaryDocument.WarningJson(PAGE_NOT_REBUILT, "its page " + page
                        + " could not be rebuilt after the search (" + why + "): it keeps the version "
                        + "written as the level ended, in a plain run's words (no search limit, no search ending)")));
            }
        }
        return levels;
    }

    /** Writes into {@code dir} (a staging folder) the files of the search in {@code searchDir}. */
    private static List<Path> writeInto(Path dir, Path searchDir, String base, SearchDocument doc) throws IOException {
        Path json = dir.resolve(base + "_search.json");
        Files.writeString(json, SummaryJson.prettyJson(doc, json.getFileName().toString()), StandardCharsets.UTF_8);
        Path csv = dir.resolve(base + "_search.csv");
        try (Writer writer = Files.newBufferedWriter(csv, StandardCharsets.UTF_8);
             CSVPrinter printer = new CSVPrinter(writer, CSVFormat.RFC4180.builder()
                     .setHeader(COLUMNS.toArray(String[]::new)).get())) {
            for (SearchDocument.Level l : doc.levels()) {
                for (SearchDocument.Objective o : l.objectives()) {
                    List<Object> row = new ArrayList<>(List.of(l.index(), l.phase(), cell(l.load()), doc.unit(),
                            l.passed(), l.resolved(), l.stop(), l.samples(),
                            l.requestsCompleted() == null ? "" : l.requestsCompleted(), cell(l.durationS()),
                            cell(l.requestsS()), cell(l.outputTokS()), cell(l.goodputS()), cell(l.scheduledS()),
                            cell(l.sentS()), cell(l.sendLagP99Ms()), l.clientBehind() != null, o.objective(), o.samples(),
                            o.misses(), cell(o.estimate()), cell(o.low()), cell(o.high()), cell(o.limit()), o.unit(),
                            o.passed(), o.resolved()));
                    row.add(l.resultsDir() == null ? "" : l.resultsDir());
                    printer.printRecord(row);
                }
            }
        }
        Path html = dir.resolve(base + "_search.html");
        // the levels' own pages were written by then, in their folders beside the search's files
        Files.writeString(html, SearchHtml.render(doc, level -> levelPage(searchDir, base, level)),
                StandardCharsets.UTF_8);
        return List.of(json, csv, html);
    }

    /**
     * For a search given without it: whether it ran against the embedded simulated server, as the first level's
     * summary that records it says (every level ran against the same endpoint, so one is read, not all); null when
     * none does.
     */
    private static Boolean simulated(Path searchDir, SearchDocument doc) {
        for (SearchDocument.Level level : doc.levels()) {
            if (level.resultsDir() == null) continue;
            try {
                SummaryDocument summary = ReportData.readSummaryIn(searchDir.resolve(level.resultsDir()));
                if (summary.settings() != null && summary.settings().simulated() != null) {
                    return summary.settings().simulated();
                }
            } catch (IOException | RuntimeException e) {
                // a level whose summary cannot be read says nothing about its endpoint
            }
        }
        return null;
    }

    /** The level's own report relative to the search's folder, or null when it has none. */
    private static String levelPage(Path searchDir, String base, SearchDocument.Level level) {
        if (level.resultsDir() == null) return null;
        String page = level.resultsDir() + "/" + base + HtmlReport.FILE_SUFFIX;
        return Files.isRegularFile(searchDir.resolve(page)) ? page : null;
    }

    /** A CSV cell: empty when undefined, plain decimal otherwise. */
    static String cell(Double v) {
        return v == null ? "" : new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }
}
