package io.llmperf4j.report.html;

import static io.llmperf4j.report.html.ReportFixtures.ENVIRONMENT;
import static io.llmperf4j.report.html.ReportFixtures.parse;
import static io.llmperf4j.report.html.ReportFixtures.svg;
import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.output.SweepFiles;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.llmperf4j.report.search.LevelSlo;
import io.llmperf4j.report.search.SweepSloVerdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The sweep page read back from a sweep's folder: sweep first, every percentile at every level, the verdict. */
class SweepPageTest {

    private static final String BASE = "m_550_150";
    private static final int[] LEVELS = {1, 2, 4};

    /** A level whose 10 requests have TTFT (100 × level + i) ms and 10 events 20 × level ms apart. */
    static BenchmarkRun level(int level) {
        BenchmarkSettings s = ReportFixtures.settings("m");
        BenchmarkSettings settings = s.toBuilder().numConcurrentRequests(level).maxNumCompletedRequests(10).build();
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            long ttft = (100L * level + i) * MS;
            long gap = 20L * level * MS;
            records.add(request(i).start(ReportFixtures.START_MICROS + i * 1000L).evenEvents(ttft, gap, 10)
                    .e2e(ttft + 9 * gap + MS).usage(560, 10).client(11).build());
        }
        return new BenchmarkRun(settings, records, ReportFixtures.START_MILLIS, ReportFixtures.START_MILLIS + 5000,
                5_000_000_000L, 10, false);
    }

    /** Writes a sweep of concurrency 1, 2, 4 into {@code dir}: saturated at 2, no failures. */
    static void writeSweep(Path dir) throws Exception {
        writeSweep(dir, new SweepFiles.Verdict(2.0, null, null, List.of("saturation point: concurrency 2"), List.of()));
    }

    /** As {@link #writeSweep(Path)}, with {@code verdict}. */
    static void writeSweep(Path dir, SweepFiles.Verdict verdict) throws Exception {
        List<SweepFiles.Level> rows = new ArrayList<>();
        for (int c : LEVELS) {
            Path levelDir = dir.resolve("concurrency_" + c);
            BenchmarkRun run = level(c);
            RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
            SummaryJson.write(run, metrics, "0.1.0-test", ENVIRONMENT, levelDir);
            HtmlReport.write(run, metrics, "0.1.0-test", ENVIRONMENT, HtmlReportOptions.DEFAULT, levelDir);
            double tps = 100.0 * Math.min(c, 2) + c; // grows 1 -> 2, barely 2 -> 4
            rows.add(new SweepFiles.Level(c, "concurrency", "concurrency " + c, 10, 10, 0, 0.0, tps, 2.0,
                    100.0 * c, 100.0 * c + 8, 1000.0, 1100.0, false, c == 2, false, false, false, null, null,
                    "concurrency_" + c));
        }
        SweepFiles.write(dir, BASE, new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency", "concurrency",
                List.of(1.0, 2.0, 4.0), "closed loop, concurrency 1, 2, 4", "none",
                new SweepFiles.Rules(5, 2, 5), verdict, false, rows));
    }

    /**
     * The verdict's header speaks the verdict's words: "not judged" where its lines say so (the QA: the header said
     * "not reached" beside "saturation point: not judged"), and the first failures mean what their line says they
     * mean: a server gone away is not "the service cannot hold it".
     */
    @Test
    void theHeaderSaysWhatTheVerdictsLinesSay(@TempDir Path dir) throws Exception {
        writeSweep(dir, new SweepFiles.Verdict(null, null, 1.0, List.of(
                "saturation point: not judged (no level could be judged)",
                "TTFT red line: not judged (no level could be judged)",
                "first level with failures: concurrency 1 (8 of 8 failed: 2 capacity (429, 408, 5xx, timeouts, "
                        + "dropped connections, error events after tokens), 6 server unavailable (connections refused before "
                        + "any request succeeded but after it had begun answering 2 requests: restart, crash)): the server went away during it, "
                        + "not a limit of the service's capacity"), List.of()));
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("<li class=\"verdict-saturation\"><strong>Saturation point:</strong> not judged</li>"),
                html);
        assertTrue(html.contains("<li class=\"verdict-redline\"><strong>TTFT red line:</strong> not judged</li>"));
        assertTrue(html.contains("<li class=\"verdict-failing\"><strong>First level with failures:</strong> "
                + "<span class=\"level\" data-level=\"1\">concurrency 1</span> (the server went away during it, not a "
                + "limit of the service&#39;s capacity)</li>"), html);
        assertFalse(html.contains("not reached") || html.contains("cannot hold"), html);

        writeSweep(dir, new SweepFiles.Verdict(null, null, 2.0, List.of(
                "saturation point: not reached (output tok/s grew by at least 5.0 % at every judged level)",
                "TTFT red line: not crossed (no TTFT p90 jump of 3.0x or more)",
                "first level with failures: concurrency 2 (1 of 10 failed: 1 capacity (429, 408, 5xx, timeouts, "
                        + "dropped connections, error events after tokens)): the service cannot hold it"), List.of()));
        html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("<strong>Saturation point:</strong> not reached</li>"));
        assertTrue(html.contains("<strong>TTFT red line:</strong> not crossed</li>"));
        assertTrue(html.contains("concurrency 2</span> (the service cannot hold it)</li>"));
        writeSweep(dir, new SweepFiles.Verdict(null, null, null, List.of("failures: none that point at the service "
                + "(connection refused, 4xx, cancellations are named below)"), List.of()));
        html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("<strong>First level with failures:</strong> none that point at the service</li>"));
    }

    /**
     * The QA (a rate sweep): the header said "output tok/s stopped growing" while output tok/s rose 58.5 -> 66.8; the
     * rule that decided was the keep-up share. The header gives the verdict line's own reason.
     */
    @Test
    void theSaturationPointGivesTheRuleThatDecidedIt(@TempDir Path dir) throws Exception {
        String reason = "successes ended at 74.3 % (95 % interval 73.3-75.4 %) of the scheduled rate: the service "
                + "fell behind the offer; threshold 95.0 %";
        writeSweep(dir, new SweepFiles.Verdict(2.0, null, null, List.of("saturation point: concurrency 2 (" + reason
                + ")"), List.of()));
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("<li class=\"verdict-saturation\"><strong>Saturation point:</strong> <span "
                + "class=\"level\" data-level=\"2\">concurrency 2</span> (" + reason + ")</li>"), html);
        assertFalse(html.contains("stopped growing"), html);
    }

    /**
     * The QA: a level of refusals (6 of 48 succeeded) showed the sweep's best req/s and goodput over its 0.568 s, with
     * nothing on its row to say the verdict could not judge it. Its row says so, with its error rate.
     */
    @Test
    void aLevelWithTooFewSuccessesSaysSoInItsRow(@TempDir Path dir) throws Exception {
        List<SweepFiles.Level> rows = new ArrayList<>();
        for (int c : LEVELS) {
            boolean few = c == 4;
            rows.add(new SweepFiles.Level(c, "concurrency", "concurrency " + c, few ? 6 : 10, few ? 48 : 10,
                    few ? 42 : 0, few ? 0.875 : 0.0, 100.0 * c, 2.0 * c, 100.0, 108.0, 1000.0, 1100.0, false, false,
                    false, few, few, null, null, null));
        }
        SweepFiles.write(dir, BASE, new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency", "concurrency",
                List.of(1.0, 2.0, 4.0), "closed loop, concurrency 1, 2, 4", "none", new SweepFiles.Rules(5, 2, 10),
                new SweepFiles.Verdict(null, null, 4.0, List.of(), List.of()), false, rows));
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("<tr data-index=\"2\" data-level=\"4\" class=\"failing not-judged\">"), html);
        assertTrue(html.contains("<span class=\"flag not-judged\">not judged: 6 of 48 succeeded (87.5 % failed)"
                + "</span>"), html);
        assertEquals(1, html.split("flag not-judged", -1).length - 1, "only the level with too few successes");
    }

    private static SummaryDocument summary(Path dir, int c) throws Exception {
        return ReportData.readSummaryIn(dir.resolve("concurrency_" + c));
    }

    /** {@code data-y} of every point of the series with this class, in order. */
    private static List<Double> ys(String svg, String seriesClass) {
        Matcher g = Pattern.compile("<g class=\"series " + Pattern.quote(seriesClass) + "\">(.*?)</g>",
                Pattern.DOTALL).matcher(svg);
        assertTrue(g.find(), "no series " + seriesClass);
        List<Double> ys = new ArrayList<>();
        Matcher p = Pattern.compile("data-y=\"([^\"]+)\"").matcher(g.group(1));
        while (p.find()) ys.add(Double.parseDouble(p.group(1)));
        return ys;
    }

    @Test
    void readsTheSweepFolderAndPutsTheSweepFirst(@TempDir Path dir) throws Exception {
        writeSweep(dir);
        Path file = HtmlReport.fromResultsDir(dir);
        assertEquals(dir.resolve(BASE + "_report.html"), file);
        String html = Files.readString(file);
        parse(html); // well-formed

        int sweep = html.indexOf("<section id=\"sweep\"");
        int latency = html.indexOf("<section id=\"latency-vs-load\"");
        int throughput = html.indexOf("<section id=\"throughput\"");
        int levels = html.indexOf("<section id=\"levels\"");
        assertTrue(sweep > 0 && sweep < latency && latency < throughput && throughput < levels,
                "sweep, then latency against load, then throughput, then each level");
        assertFalse(html.contains("<script"), "no script");

        // every percentile of every latency, at every level, equals the level's summary
        for (var metric : SweepData.LATENCIES) {
            String key = metric.jsonKey().replace("_ms", "").replace('_', '-');
            String chart = svg(html, "sweep-" + key);
            for (int p : new int[] {50, 90, 99}) {
                List<Double> ys = ys(chart, "sweep-" + key + "-p" + p);
                assertEquals(3, ys.size(), key + " p" + p);
                for (int i = 0; i < LEVELS.length; i++) {
                    SummaryDocument.StatsJson st = summary(dir, LEVELS[i]).metrics().get(metric.jsonKey());
                    double expected = p == 50 ? st.p50() : p == 90 ? st.p90() : st.p99();
                    assertEquals(expected, ys.get(i), 1e-9, key + " p" + p + " at concurrency " + LEVELS[i]);
                }
            }
        }
        // TTFT p99 of concurrency 4: 400..409 ms, numpy's linear interpolation -> 408.91
        assertEquals(408.91, ys(svg(html, "sweep-ttft"), "sweep-ttft-p99").get(2), 1e-9);
        assertTrue(html.contains("<title>concurrency 4: TTFT p99 408.9 ms</title>"), "hover text per point");
    }

    @Test
    void marksTheSaturationPointOnTheLatencyThroughputCurve(@TempDir Path dir) throws Exception {
        writeSweep(dir);
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        String curve = svg(html, "sweep-latency-throughput");
        List<Double> tps = ys(curve, "curve");
        assertEquals(List.of(101.0, 202.0, 204.0), tps);
        Matcher ring = Pattern.compile("<g class=\"series saturation-point level-2\"><circle[^>]*data-x=\"([^\"]+)\" "
                + "data-y=\"([^\"]+)\"").matcher(curve);
        assertTrue(ring.find(), "the saturation point is ringed at level 2");
        assertEquals(summary(dir, 2).metrics().get("e2e_latency_ms").p50(), Double.parseDouble(ring.group(1)), 1e-9);
        assertEquals(202.0, Double.parseDouble(ring.group(2)), 1e-9);
        assertTrue(html.contains("<li class=\"verdict-saturation\"><strong>Saturation point:</strong> "
                + "<span class=\"level\" data-level=\"2\">concurrency 2</span>"));
        assertTrue(html.contains("<tr data-index=\"1\" data-level=\"2\" class=\"saturation\">"));
        // each level links its own report
        assertTrue(html.contains("href=\"concurrency_4/m_550_150_report.html\""));
    }

    /**
     * A rate sweep (open loop): the summaries count from the actual send, the sweep rows' TTFT from the intended send.
     * The page says which is which, adds the rows' TTFT p50/p90 as columns, and never draws a row's from-intended
     * TTFT as the summary's (rate 4 has no folder).
     */
    @Test
    void aRateSweepLabelsLatenciesFromTheActualSendAndAddsTtftFromTheIntendedSend(@TempDir Path dir)
            throws Exception {
        List<SweepFiles.Level> rows = new ArrayList<>();
        for (int c : LEVELS) {
            boolean written = c != 4;
            if (written) {
                BenchmarkRun run = level(c);
                SummaryJson.write(run, RunMetrics.of(run, MetricsConfig.DEFAULT), "0.1.0-test", ENVIRONMENT,
                        dir.resolve("rate_" + c));
            }
            rows.add(new SweepFiles.Level(c, "req/s", "rate " + c, 10, 10, 0, 0.0, 100.0 * c, 2.0,
                    100.0 * c + 500.25, 100.0 * c + 700.75, 3000.0, 3300.0, false, false, false, false, false, null,
                    null, written ? "rate_" + c : null));
        }
        SweepFiles.write(dir, BASE, new SweepFiles.Document(SweepFiles.SCHEMA, "m", "rate", "req/s",
                List.of(1.0, 2.0, 4.0), "open loop, 1, 2, 4 req/s", "none", new SweepFiles.Rules(5, 2, 5),
                new SweepFiles.Verdict(null, null, null, List.of(), List.of()), false, rows));
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        parse(html);

        assertTrue(html.contains("<th colspan=\"12\" class=\"from-actual\">from the actual send (each level's "
                + "summary)</th><th colspan=\"2\" class=\"from-intended\">from the intended send (the sweep "
                + "file's)</th>"), "the table's two groups of latencies");
        for (int c : LEVELS) {
            assertTrue(html.contains("<td class=\"num\" data-metric=\"ttft_from_intended_ms\" data-p=\"50\">"
                    + Html.fixed(100.0 * c + 500.25, 1) + "</td><td class=\"num\" data-metric=\""
                    + "ttft_from_intended_ms\" data-p=\"90\">" + Html.fixed(100.0 * c + 700.75, 1) + "</td>"),
                    "rate " + c + ": the row's TTFT from the intended send");
        }
        assertTrue(html.contains("TTFT vs load, from the actual send"), "the TTFT chart says which send");
        assertTrue(html.contains("E2E latency vs load, from the actual send"), "the E2E chart says which send");
        assertFalse(html.contains("TPOT vs load, from"), "TPOT counts from no send");
        List<Double> p50 = ys(svg(html, "sweep-ttft"), "sweep-ttft-p50");
        assertEquals(summary(dir, "rate_1").metrics().get("ttft_ms").p50(), p50.get(0), 1e-9);
        assertFalse(p50.contains(100.0 * 4 + 500.25), "rate 4's row counts from the intended send: not drawn");
        assertTrue(html.contains("counted from the actual send; the last TTFT columns count from the intended send"));
    }

    private static SummaryDocument summary(Path dir, String folder) throws Exception {
        return ReportData.readSummaryIn(dir.resolve(folder));
    }

    /**
     * The level table's every header row spans as many columns as each body row has cells, for a concurrency and a
     * rate sweep (whose first header row groups the latencies by send), with and without {@code --slo} verdicts and
     * goodput: the group row's last cell spans the SLO and verdict columns, not the verdict alone.
     */
    @ParameterizedTest(name = "openLoop={0}, slo={1}, goodput={2}")
    @CsvSource({"false,false,false", "false,true,false", "false,true,true", "false,false,true",
            "true,false,false", "true,true,false", "true,true,true", "true,false,true"})
    void everyHeaderRowSpansTheBodyRowsColumns(boolean openLoop, boolean slo, boolean goodput, @TempDir Path dir)
            throws Exception {
        String unit = openLoop ? "req/s" : "concurrency";
        List<SweepFiles.Level> rows = new ArrayList<>();
        List<LevelSlo> verdicts = new ArrayList<>();
        for (int c : LEVELS) {
            LevelSlo v = !slo ? null : new LevelSlo(c < 4 ? LevelSlo.MET : LevelSlo.MISSED, true, 10,
                    c < 4 ? List.of() : List.of("ttft_p90<=300ms"), List.of());
            verdicts.add(v);
            rows.add(new SweepFiles.Level(c, unit, (openLoop ? "rate " : "concurrency ") + c, 10, 10, 0, 0.0,
                    100.0 * c, 2.0, goodput ? 1.5 : null, goodput ? 0.75 : null, 100.0 * c, 100.0 * c + 8, 1000.0,
                    1100.0, false, false, false, false, false, null, null, null, v, null));
        }
        List<Double> levels = List.of(1.0, 2.0, 4.0);
        SweepSloVerdict verdict = !slo ? null : SweepSloVerdict.of(List.of("ttft_p90<=300ms"),
                openLoop ? "rate" : "concurrency", unit, levels, verdicts);
        SweepFiles.write(dir, BASE, new SweepFiles.Document(SweepFiles.SCHEMA, "m", openLoop ? "rate" : "concurrency",
                unit, levels, openLoop ? "open loop, 1, 2, 4 req/s" : "closed loop, concurrency 1, 2, 4", "none",
                new SweepFiles.Rules(5, 2, 5), new SweepFiles.Verdict(null, null, null, List.of(), List.of()), false,
                rows, verdict));
        String html = Files.readString(HtmlReport.fromResultsDir(dir));

        Element table = null;
        NodeList tables = parse(html).getElementsByTagName("table");
        for (int i = 0; i < tables.getLength(); i++) {
            Element t = (Element) tables.item(i);
            if ("sweep".equals(t.getAttribute("class"))) table = t;
        }
        assertTrue(table != null, "the level table");
        Element head = (Element) table.getElementsByTagName("thead").item(0);
        Element body = (Element) table.getElementsByTagName("tbody").item(0);
        NodeList headRows = head.getElementsByTagName("tr");
        NodeList bodyRows = body.getElementsByTagName("tr");
        assertEquals(openLoop ? 2 : 1, headRows.getLength(), "a rate sweep groups its latencies by send");
        assertEquals(LEVELS.length, bodyRows.getLength());
        int columns = 6 + 12 + (openLoop ? 2 : 0) + (goodput ? 2 : 0) + (slo ? 1 : 0) + 1;
        for (int r = 0; r < headRows.getLength(); r++) {
            int span = 0;
            NodeList ths = ((Element) headRows.item(r)).getElementsByTagName("th");
            for (int c = 0; c < ths.getLength(); c++) {
                String colspan = ((Element) ths.item(c)).getAttribute("colspan");
                span += colspan.isEmpty() ? 1 : Integer.parseInt(colspan);
            }
            assertEquals(columns, span, "header row " + r);
        }
        for (int r = 0; r < bodyRows.getLength(); r++) {
            assertEquals(columns, ((Element) bodyRows.item(r)).getElementsByTagName("td").getLength(), "body row " + r);
        }
        assertEquals(slo, html.contains("<th>SLO</th>"));
        assertEquals(goodput, html.contains("<th class=\"num\">goodput req/s</th>"));
    }
}
