package io.llmperf4j.cli;

import io.llmperf4j.run.RunFailedException;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.output.ResultsFolder;
import io.llmperf4j.report.summary.Plural;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code llmperf4j report DIR}: rebuilds the HTML report from a results folder alone. */
@Command(name = "report",
        mixinStandardHelpOptions = true,
        headerHeading = "",
        header = "Rebuilds a run's HTML report from its results folder.",
        description = {
            "Rebuilds <base>_report.html from a results folder: the *_llmperf4j_summary.json and requests.jsonl",
            "(or the *_requests.csv). One self-contained file: no scripts, fonts or links to elsewhere.",
            "A sweep's folder gets the sweep's page (read from *_sweep.json and each level's summary; a sweep",
            "run with --iterations also a page of iterations per level, linked from it), an iterations folder",
            "the iterations' page, a comparison folder (comparison.csv) the models' page."
        })
final class ReportCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    DebugOption debugOption;

    @Parameters(index = "0", paramLabel = "DIR",
            description = "Results folder (a run, a sweep, iterations or a comparison), or the "
                    + "*_llmperf4j_summary.json in it when it holds several runs.")
    Path dir;

    ReportCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (!Files.exists(dir)) {
            throw new UsageException(dir + " does not exist (give a results folder written by token-benchmark)");
        }
        ResultsFolder found;
        try {
            found = ResultsFolder.detect(dir);
        } catch (IOException e) {
            // not a results folder: the input is wrong (exit 2), as compare says for the same folder
            throw new UsageException(e.getMessage());
        }
        if (Files.isDirectory(dir) && found.file().getFileName().toString().equals(RequestJournal.FILE_NAME)) {
            throw new RunFailedException(journalOnly(dir));
        }
        try {
            Path report = HtmlReport.fromResultsDir(dir);
            context.out().println(report.toAbsolutePath());
            return ExitCodes.OK;
        } catch (IOException e) {
            throw new RunFailedException("cannot build the report: " + e.getMessage(), e);
        }
    }

    /**
     * What to do with a folder holding only a run's journal (a run killed, or quit at once, before its summary): the
     * page needs the summary, which the journal alone cannot give (the run's settings are not in it); compare reads
     * the journal as it is, and the run it was replacing, when set aside, can be put back.
     */
    private static String journalOnly(Path dir) {
        long records;
        List<String> cut = new ArrayList<>();
        try {
            // whole records only: a last line cut by a kill or a full disk is skipped, and said (QA: it was counted)
            records = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME), cut::add).size();
        } catch (IOException e) {
            records = -1;
        }
        Path aside = dir.resolve(io.llmperf4j.run.ResultsFolder.ASIDE);
        return dir + " holds only the journal of a run stopped before it wrote its summary (requests.jsonl"
                + (records < 0 ? "" : ", " + Plural.of(records, "request")
                + (cut.isEmpty() ? "" : "; a cut last line skipped")) + "): the page needs its "
                + "*_llmperf4j_summary.json; llmperf4j compare " + dir + " OTHER_DIR reads the journal as it is"
                + (Files.isDirectory(aside) ? "; the run it was replacing is kept whole in " + aside + ": move its "
                + "files back into " + dir + " to restore it" : "");
    }
}
