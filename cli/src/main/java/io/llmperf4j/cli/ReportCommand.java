package io.llmperf4j.cli;

import io.llmperf4j.run.RunFailedException;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.output.ResultsFolder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        try {
            ResultsFolder.detect(dir);
        } catch (IOException e) {
            // not a results folder: the input is wrong (exit 2), as compare says for the same folder
            throw new UsageException(e.getMessage());
        }
        try {
            Path report = HtmlReport.fromResultsDir(dir);
            context.out().println(report.toAbsolutePath());
            return ExitCodes.OK;
        } catch (IOException e) {
            throw new RunFailedException("cannot build the report: " + e.getMessage(), e);
        }
    }
}
