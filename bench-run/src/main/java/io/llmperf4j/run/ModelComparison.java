package io.llmperf4j.run;

import io.llmperf4j.model.disk.WholeFiles;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.JmhTextFormat;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.report.llmperf.LlmperfFileNames;

import io.llmperf4j.report.html.HtmlReport;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Several models given the same workload at the same load (on one machine or a cluster): a results subfolder per
 * model, then one comparison table on stdout and {@code comparison.csv}.
 */
final class ModelComparison {
    private ModelComparison() {
    }

    /** The results folder, or for a comparison a subfolder per model; null when nothing is saved. */
    static Path modelDir(Path resultsDir, LoadPlan plan, String model) {
        if (resultsDir == null || !plan.comparison()) {
            return resultsDir;
        }
        return resultsDir.resolve(LlmperfFileNames.sanitize(model));
    }

    /** The comparison of the models that ran, in their order. */
    static void print(List<ModelRun> runs, LoadPlan plan, Path resultsDir, PrintStream out, PrintStream err) {
        List<HarnessResult> harness = new ArrayList<>();
        List<LoadConsole.Row> rows = new ArrayList<>();
        List<LoadFiles.ComparisonRow> fileRows = new ArrayList<>();
        for (ModelRun run : runs) {
            harness.addAll(run.result().harnessResults());
            for (ModelRun.LevelReport level : run.levels()) {
                LoadSettings settings = level.outcome().settings();
                String name = run.model() + (plan.multiLevel() ? " @ " + level.label() : "");
                rows.add(new LoadConsole.Row(name, level.summary(), level.outcome().aborted(), "",
                        SloVerdicts.cell(level)));
                Path where = level.dir() != null ? level.dir() : run.dir();
                fileRows.add(new LoadFiles.ComparisonRow(run.model(), settings, level.summary(),
                        level.outcome().aborted(), where == null || resultsDir == null ? ""
                        : resultsDir.relativize(where).toString()));
            }
        }
        if (!harness.isEmpty()) {
            out.print(JmhTextFormat.summaryTable(harness));
            out.println();
        }
        out.println("Comparison: " + plan.describe() + "; the same workload for every model");
        out.print(LoadConsole.levelTable("model", rows));
        out.flush();
        if (resultsDir != null) {
            try {
                Path file = WholeFiles.write(resultsDir, into -> List.of(LoadFiles.writeComparison(into,
                        plan.loadUnit(), fileRows))).get(0); // whole or absent, never cut
                // the page is read back from the file just written, as `report DIR` builds it
                Path page = HtmlReport.fromResultsDir(file);
                err.println("Comparison written to " + file.toAbsolutePath() + " and " + page.toAbsolutePath());
            } catch (IOException e) {
                throw new RunFailedException("could not write the comparison to " + resultsDir + ": "
                        + ModelRun.why(e), e);
            }
        }
    }
}
