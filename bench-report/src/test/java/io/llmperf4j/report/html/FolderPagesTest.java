package io.llmperf4j.report.html;

import static io.llmperf4j.report.html.ReportFixtures.ENVIRONMENT;
import static io.llmperf4j.report.html.ReportFixtures.parse;
import static io.llmperf4j.report.html.ReportFixtures.svg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.output.ComparisonFile;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.SweepFiles;
import io.llmperf4j.report.summary.SummaryJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** report on a comparison's folder and on an iterations folder: their own pages, values from their files. */
class FolderPagesTest {

    private static List<String> attr(String svg, String seriesClass, String attr) {
        Matcher g = Pattern.compile("<g class=\"series " + seriesClass + "\">(.*?)</g>", Pattern.DOTALL).matcher(svg);
        assertTrue(g.find(), "no series " + seriesClass);
        List<String> out = new ArrayList<>();
        Matcher p = Pattern.compile(attr + "=\"([^\"]+)\"").matcher(g.group(1));
        while (p.find()) out.add(p.group(1));
        return out;
    }

    @Test
    void aComparisonFolderGetsTheModelsPage(@TempDir Path dir) throws Exception {
        List<ComparisonFile.Row> rows = new ArrayList<>();
        for (String model : List.of("a", "b")) {
            Path folder = dir.resolve(model);
            BenchmarkRun run = SweepPageTest.level(model.equals("a") ? 1 : 2);
            RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
            SummaryJson.write(run, metrics, "0.1.0-test", ENVIRONMENT, folder);
            HtmlReport.write(run, metrics, "0.1.0-test", ENVIRONMENT, HtmlReportOptions.DEFAULT, folder);
            rows.add(new ComparisonFile.Row(model, "4", "concurrency", 10, 10, model.equals("a") ? 50.0 : 80.0, 1.0,
                    100.0, 110.0, model.equals("a") ? 300.0 : 600.0, 700.0, false, model));
        }
        ComparisonFile.write(dir, rows);
        Path file = HtmlReport.fromResultsDir(dir);
        assertEquals(dir.resolve("comparison_report.html"), file);
        String html = Files.readString(file);
        parse(html);
        String curve = svg(html, "comparison-latency-throughput");
        assertEquals(List.of("300"), attr(curve, "model-0", "data-x"));
        assertEquals(List.of("80"), attr(curve, "model-1", "data-y"));
        assertTrue(html.contains("<title>b at 4 concurrency: 80.0 output tok/s, E2E p50 600.0 ms</title>"));
        assertTrue(html.contains("href=\"b/m_550_150_report.html\""), "links each model's own page");
        // the p99 comes from the model's summary: TTFT of level 2 is 200..209 ms, p99 208.91
        assertTrue(html.contains("<td class=\"num\">208.9</td>"), html);
    }

    /** One iteration of fork 1 at concurrency 4, 1 s long, from {@code startS}: {@code tps} tok/s. */
    private static IterationsFile.Row iteration(String type, int number, double startS, double tps, int ok,
                                                int failed) {
        return new IterationsFile.Row("4", "concurrency", 1, type, number, startS, 1, tps, tps, ok, failed, 3.0, 10.0,
                1.0);
    }

    @Test
    void anIterationsFolderGetsTheIterationsPage(@TempDir Path dir) throws Exception {
        List<IterationsFile.Row> rows = new ArrayList<>(List.of(iteration("warmup", 1, 0, 90, 3, 0),
                iteration("measurement", 1, 1, 100, 3, 0), iteration("measurement", 2, 2, 110, 3, 0)));
        IterationsFile.write(dir, "m_100_5", rows);
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        parse(html);
        assertTrue(html.contains("<strong class=\"mean\">105.00</strong>"), "the mean leaves warmup out");
        String chart = svg(html, "iterations-tps-0");
        assertEquals(List.of("100", "110"), attr(chart, "measured", "data-y"));
        assertEquals(List.of("90"), attr(chart, "warmup", "data-y"));
        assertTrue(!html.contains("class=\"ci\""), "without the JMH JSON: the mean alone");

        // with <base>_jmh.json beside it, the page shows the console's ± (its 99.9 % interval) too
        Files.writeString(dir.resolve("m_100_5_jmh.json"), "[{\"params\": {\"concurrency\": \"4\", \"model\": \"m\"},"
                + " \"primaryMetric\": {\"score\": 105.0, \"scoreError\": 3183.0988, \"scoreUnit\": \"tok/s\"}}]");
        html = Files.readString(HtmlReport.fromResultsDir(dir));
        parse(html);
        assertTrue(html.contains("<strong class=\"mean\">105.00</strong> <span class=\"ci\">± 3183.10</span> (99.9 %"
                + " confidence interval of the mean"), html);
    }

    /**
     * Measured requests that failed are said on the page as the console says them (QA: 138 of 290 failed and the page
     * showed only the score and a cell per row), and their iterations' rows are marked; the warmup's do not count.
     */
    @Test
    void failedMeasuredRequestsAreSaidAndTheirRowsMarked(@TempDir Path dir) throws Exception {
        List<IterationsFile.Row> rows = new ArrayList<>(List.of(iteration("warmup", 1, 0, 90, 3, 5),
                iteration("measurement", 1, 1, 100, 3, 0), iteration("measurement", 2, 2, 110, 2, 1)));
        IterationsFile.write(dir, "m_100_5", rows);
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        parse(html);
        assertTrue(html.contains("<strong class=\"failed\">failed: 1 of 6 measured requests (16.7 %)</strong>"),
                html);
        assertEquals(2, html.split("<tr class=\"has-failures\">", -1).length - 1, "the warmup's row and the failed "
                + "measured iteration's");

        rows.set(2, iteration("measurement", 2, 2, 110, 3, 0));
        IterationsFile.write(dir, "m_100_5", rows);
        html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(!html.contains("measured requests ("), "no measured request failed: " + html);
    }

    /**
     * A sweep run with iterations keeps no folder per level: report writes each level's page of iterations beside the
     * sweep's page, which links them (a rate sweep: the CSV's unit "req/s", the JMH param "rate").
     */
    @Test
    void aSweepOfIterationsGetsAPageOfIterationsPerLevel(@TempDir Path dir) throws Exception {
        List<IterationsFile.Row> rows = new ArrayList<>();
        List<SweepFiles.Level> levels = new ArrayList<>();
        for (String level : List.of("1", "2.5")) {
            double tps = level.equals("1") ? 100 : 250;
            for (int i = 1; i <= 2; i++) {
                rows.add(new IterationsFile.Row(level, "req/s", 1, "measurement", i, i, 1, tps, tps, 3, 0, 3.0, 10.0,
                        1.0));
            }
            levels.add(new SweepFiles.Level(Double.parseDouble(level), "req/s", "rate " + level + " req/s", 6, 6, 0,
                    0.0, tps, 3.0, null, null, null, null, false, false, false, false, false, null, null, null));
        }
        IterationsFile.write(dir, "m_100_5", rows);
        Files.writeString(dir.resolve("m_100_5_jmh.json"), "[{\"params\": {\"rate\": \"2.5\", \"model\": \"m\"},"
                + " \"primaryMetric\": {\"score\": 250.0, \"scoreError\": 12.5}}]");
        SweepFiles.write(dir, "m_100_5", new SweepFiles.Document(SweepFiles.SCHEMA, "m", "rate", "req/s",
                List.of(1.0, 2.5), "rate sweep 1,2.5; 0 warmup + 2 measurement iterations of 1 s, 1 fork", "none",
                new SweepFiles.Rules(5, 2, 5), new SweepFiles.Verdict(null, null, null, List.of(), List.of()), false,
                levels));

        Path sweepPage = HtmlReport.fromResultsDir(dir);
        assertEquals(dir.resolve("m_100_5_report.html"), sweepPage);
        String sweep = Files.readString(sweepPage);
        parse(sweep);
        for (String page : List.of("m_100_5_rate_1_report.html", "m_100_5_rate_2.5_report.html")) {
            assertTrue(sweep.contains("<a href=\"" + page + "\">this level's iterations</a>"), page + ": " + sweep);
            String html = Files.readString(dir.resolve(page));
            parse(html);
            assertTrue(html.contains("one level of <a href=\"m_100_5_report.html\">the sweep</a>"), html);
            assertEquals(2, html.split("<tr><td class=\"num\">", -1).length - 1, "this level's rows alone: " + html);
        }
        String level25 = Files.readString(dir.resolve("m_100_5_rate_2.5_report.html"));
        assertTrue(level25.contains("<h2>req/s 2.5</h2>"), level25);
        assertTrue(level25.contains("<strong class=\"mean\">250.00</strong> <span class=\"ci\">± 12.50</span>"),
                "the rate level's score from the JMH file: " + level25);
    }

    @Test
    void aFolderWithoutResultsSaysWhatWasExpected(@TempDir Path dir) {
        IOException e = assertThrows(IOException.class, () -> HtmlReport.fromResultsDir(dir));
        assertTrue(e.getMessage().contains("expected a *_llmperf4j_summary.json (a run), a *_sweep.json (a sweep)"),
                e.getMessage());
    }
}
