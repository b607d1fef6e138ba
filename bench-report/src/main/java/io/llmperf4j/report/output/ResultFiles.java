package io.llmperf4j.report.output;

import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.disk.ResultsNotWrittenException;
import io.llmperf4j.model.disk.WholeFiles;
import io.llmperf4j.report.csv.EventCsvWriter;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.html.HtmlReportOptions;
import io.llmperf4j.report.html.ReportData;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.llmperf.LlmperfResultFiles;
import io.llmperf4j.report.llmperf.LlmperfResultWriter;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.servermetrics.csv.ServerMetricsCsvWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The files a run writes for each level, chosen once per run ({@link #tokenBenchmark}) and written by one call
 * ({@link #write}) whatever ran the level: this machine or a cluster's workers.
 */
public final class ResultFiles {
    /** llmperf's {@code <base>_summary.json}, {@code <base>_individual_responses.json} and our requests CSV. */
    public static final ResultFile LLMPERF = (level, dir) -> {
        LlmperfResultFiles files = LlmperfResultWriter.write(level.run(), level.sendLagNanos(),
                level.clientDelayNanos(), dir);
        return List.of(files.summaryJson(), files.individualResponsesJson(), files.requestsCsv());
    };

    /**
     * llmperf4j's summary, with the cluster's workers when they sent the level, the server's side if scraped, and the
     * signal that cut the level short, if one did.
     */
    public static final ResultFile SUMMARY = (level, dir) -> {
        Files.createDirectories(dir);
        Path file = dir.resolve(SummaryJson.fileName(level.run().settings()));
        SummaryJson.write(SummaryDocument.of(level.run(), level.metrics(), level.toolVersion(), level.environment())
                .withDistributed(level.distributed()).withServer(level.server()).withStoppedBy(level.stoppedBy())
                .withSessionTurnsNotSent(level.sessionTurnsNotSent()), file);
        return List.of(file);
    };

    /**
     * {@code requests.jsonl}: appended as each request ends by the run itself ({@link RequestJournal}), so a killed
     * run keeps what it completed; written here from the level's records only when the run kept none.
     */
    public static final ResultFile JOURNAL = (level, dir) -> {
        Path file = dir.resolve(RequestJournal.FILE_NAME);
        if (!Files.exists(file)) {
            try (RequestJournal journal = RequestJournal.create(dir)) {
                for (RequestRecord record : level.run().records()) {
                    journal.append(record);
                }
            }
        }
        return List.of(file);
    };

    /** {@code <base>_open_loop.json}, for an open-loop level. */
    public static final ResultFile OPEN_LOOP = (level, dir) -> level.openLoop() == null ? List.of()
            : List.of(OpenLoopFile.write(dir, LlmperfFileNames.baseName(level.run().settings()), level.openLoop()));

    /** The self-contained HTML report. */
    public static final ResultFile HTML = (level, dir) -> {
        Files.createDirectories(dir);
        Path file = dir.resolve(HtmlReport.fileName(level.run().settings()));
        ReportData data = ReportData.of(level.run(), level.metrics(), level.toolVersion(), level.environment())
                .withServer(level.server(), level.serverTimeline()).withOpenLoop(level.openLoop())
                .withStoppedBy(level.stoppedBy()).withSessionTurnsNotSent(level.sessionTurnsNotSent());
        HtmlReport.write(data, HtmlReportOptions.DEFAULT, file);
        return List.of(file);
    };

    /** {@code <base>_events.csv}: one row per content event. */
    public static final ResultFile EVENTS = (level, dir) -> List.of(EventCsvWriter.write(level.run(),
            level.metrics().config().tokenCounting().policy(), dir));

    /**
     * {@code <base>_server_metrics.csv}: every scrape of the server's Prometheus metrics during the level, when they
     * were scraped (tidy: {@code time_s}, {@code name}, {@code labels}, {@code value}).
     */
    public static final ResultFile SERVER_METRICS = (level, dir) -> {
        if (level.serverTimeline() == null) return List.of();
        Path file = ServerMetricsCsvWriter.fileFor(dir, LlmperfFileNames.baseName(level.run().settings()));
        ServerMetricsCsvWriter.write(level.serverTimeline(), file);
        return List.of(file);
    };

    private final List<ResultFile> files;

    private ResultFiles(List<ResultFile> files) {
        this.files = List.copyOf(files);
    }

    /**
     * A token benchmark's files, in the order they are named: llmperf's trio, our summary, the journal, the open
     * loop's figures (open loops), the HTML report, with {@code saveEvents} the events CSV, and the server's
     * metrics when they were scraped.
     */
    public static ResultFiles tokenBenchmark(boolean saveEvents) {
        List<ResultFile> files = new ArrayList<>(List.of(LLMPERF, SUMMARY, JOURNAL, OPEN_LOOP, HTML));
        if (saveEvents) {
            files.add(EVENTS);
        }
        files.add(SERVER_METRICS);
        return new ResultFiles(files);
    }

    /** Exactly these files, in this order. */
    public static ResultFiles of(List<ResultFile> files) {
        return new ResultFiles(files);
    }

    /** The same set with {@code file} written last. */
    public ResultFiles with(ResultFile file) {
        List<ResultFile> more = new ArrayList<>(files);
        more.add(file);
        return new ResultFiles(more);
    }

    /**
     * Writes every file of the set for {@code level} into {@code dir}; returns them in the order written. Each file
     * is written whole or not at all ({@link WholeFiles}: into {@value WholeFiles#STAGING} in {@code dir}, then renamed
     * into place), so a full disk never leaves a cut or empty file under a result's name. A file that cannot be written
     * does not stop the others (the smaller ones may still fit); the exception then names it and the files kept. When
     * the staging folder cannot be made no other file is tried: the exception names the folder and why.
     *
     * @throws ResultsNotWrittenException when a file could not be written (the others are written)
     */
    public List<Path> write(LevelOutput level, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        IOException firstFailure = null;
        Path journal = dir.resolve(RequestJournal.FILE_NAME);
        for (ResultFile file : files) {
            if (file == JOURNAL && Files.exists(journal)) {
                written.add(journal); // appended in place as requests ended: its whole records are kept as they are
                continue;
            }
            try {
                written.addAll(WholeFiles.write(dir, into -> file.write(level, into)));
            } catch (ResultsNotWrittenException e) {
                written.addAll(e.kept());
                if (e.folderNotMade() != null) { // no other file can be begun either; the journal is kept as it is
                    if (files.contains(JOURNAL) && Files.exists(journal) && !written.contains(journal)) {
                        written.add(journal);
                    }
                    if (firstFailure == null) throw e.keptAfter(written);
                    // the disk filled at an earlier file: name it, and the files not begun after it
                    failed.add("the level's other files (could not make " + e.folderNotMade() + ")");
                    firstFailure.addSuppressed(e.getCause());
                    break;
                }
                failed.addAll(notWritten(file, level, e.failed(), written));
                IOException cause = (IOException) e.getCause();
                if (firstFailure == null) firstFailure = cause;
                else firstFailure.addSuppressed(cause);
            }
        }
        if (firstFailure != null) throw new ResultsNotWrittenException(failed, written, firstFailure);
        return written;
    }

    /**
     * The names of the files {@code file} did not write: those a failure left unplaced, and for llmperf's trio those
     * it never reached (its writer stops at the first that fails).
     */
    private static List<String> notWritten(ResultFile file, LevelOutput level, List<String> unplaced,
                                           List<Path> written) {
        List<String> names = new ArrayList<>(unplaced);
        if (file == LLMPERF) {
            var settings = level.run().settings();
            for (String name : List.of(LlmperfFileNames.summaryFileName(settings),
                    LlmperfFileNames.individualResponsesFileName(settings),
                    LlmperfFileNames.requestsCsvFileName(settings))) {
                if (!names.contains(name) && written.stream().noneMatch(p -> p.getFileName().toString().equals(name))) {
                    names.add(name);
                }
            }
        }
        return names.isEmpty() ? List.of("a file") : names;
    }
}
