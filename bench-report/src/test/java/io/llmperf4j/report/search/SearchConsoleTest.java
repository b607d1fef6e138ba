package io.llmperf4j.report.search;

import org.junit.jupiter.api.Test;

import io.llmperf4j.report.summary.SummaryDocument;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SearchConsoleTest {

    private static SearchDocument.Level level(int index, boolean resolved, boolean errorRateResolved) {
        return new SearchDocument.Level(index, "grow", 4, true, resolved, resolved ? "resolved" : "limit", 80, 82, 2.0,
                40.0, 800.0, 40.0, null, null, null, "ttft_p90<=250ms", List.of(
                new SearchDocument.Objective("ttft_p90<=250ms", 80, 0, 101.0, 100.0, 103.0, 250, "ms", true, true),
                new SearchDocument.Objective("error_rate<=1%", 80, 0, 0.0, 0.0, 0.0458, 0.01, "fraction", true,
                        errorRateResolved)), null, null, List.of());
    }

    @Test
    void anEstimateLevelNamesWhatItLeftUnresolved() {
        SearchDocument doc = new SearchDocument(SearchDocument.SCHEMA, "m", "concurrency", "concurrency",
                List.of("ttft_p90<=250ms", "error_rate<=1%"), "above_range", 4.0, null, "ttft_p90<=250ms", null,
                "verdict", List.of(), null, List.of(level(1, false, false), level(2, true, true)));
        List<String> lines = SearchConsole.render(doc).lines().toList();
        assertTrue(lines.get(2).contains("pass (estimate)"), lines.get(2));
        assertTrue(lines.get(2).endsWith("[100.0 ms, 103.0 ms]  unresolved: error_rate<=1%"), lines.get(2));
        assertTrue(lines.get(3).endsWith("[100.0 ms, 103.0 ms]"), "a resolved level needs no clause: " + lines.get(3));
        assertEquals(5, lines.size());
    }

    /**
     * A rate level shows the rate its draw scheduled and its client sent beside its label, and a level failed only by
     * the client's send lag says so, with the objective from the actual send and the lag.
     */
    @Test
    void aRateLevelShowsItsScheduleAndAClientBehindLevelSaysSo() {
        SearchDocument.Objective intended = new SearchDocument.Objective("ttft_p90<=300ms", 140, 17, 309.6, 248.2,
                379.5, 300, "ms", false, false);
        SearchDocument.Objective actual = new SearchDocument.Objective("ttft_p90<=300ms", 140, 12, 280.8, 230.1,
                350.2, 300, "ms", true, false);
        SearchDocument.Level level = new SearchDocument.Level(7, "repeat", 6.5, false, false, "limit", 140, 140, 20.5,
                6.84, 109.4, 6.1, 7.006956894506344, 7.006942553489932, 166.0316837699988, "ttft_p90<=300ms",
                List.of(intended), actual, "level_07_rate_6.5", List.of());
        SearchDocument doc = new SearchDocument(SearchDocument.SCHEMA, "m", "rate", "req/s",
                List.of("ttft_p90<=300ms"), "found", 6.5, null, "ttft_p90<=300ms", null, "verdict", List.of(),
                new SearchDocument.Settings(2, 1000, 0.1, "20 s", 10, 0.95, "open loop, poisson arrivals"),
                List.of(level));
        List<String> lines = SearchConsole.render(doc).lines().toList();
        assertTrue(lines.get(1).contains("rate (req/s)  scheduled      sent  verdict"), lines.get(1));
        assertTrue(lines.get(2).contains("6.50       7.01      7.01  FAIL (estimate)"), lines.get(2));
        assertTrue(lines.get(2).endsWith("[248.2 ms, 379.5 ms]  unresolved: ttft_p90<=300ms; client behind: from the actual "
                + "send ttft_p90<=300ms 280.8 ms, send lag p99 166.0 ms"), lines.get(2));
        String html = SearchHtml.render(doc);
        assertTrue(html.contains("<td>6.50</td><td>7.01</td><td>7.01</td>"), html);
        assertTrue(html.contains("client behind: from the actual send ttft_p90&lt;=300ms 280.8 ms"), html);
    }

    /**
     * A rate search of sessions starts sessions at its rate: its load, schedule and starts are sessions/s, its
     * completions req/s (turns), and the table's columns stay aligned under the longer header.
     */
    @Test
    void aRateSearchOfSessionsNamesItsLoadInSessionsPerSecond() {
        SearchDocument.Level level = new SearchDocument.Level(1, "grow", 2.75, true, true, "resolved", 40, 40, 6.4,
                6.29, 100.0, 6.29, 2.75, 2.75, 1.0, "ttft_p90<=300ms", List.of(new SearchDocument.Objective(
                "ttft_p90<=300ms", 40, 0, 120.0, 110.0, 130.0, 300, "ms", true, true)), null, null, List.of());
        SearchDocument doc = new SearchDocument(SearchDocument.SCHEMA, "m", "rate", "sessions/s",
                List.of("ttft_p90<=300ms"), "above_range", 2.75, null, "ttft_p90<=300ms", null, "verdict", List.of(),
                null, List.of(level));
        List<String> lines = SearchConsole.render(doc).lines().toList();
        assertTrue(lines.get(1).contains("  rate (sessions/s)  scheduled   started  verdict"), lines.get(1));
        assertTrue(lines.get(1).contains("  completed req/s  "), lines.get(1));
        // each value ends under its header's end
        assertEquals(lines.get(1).indexOf("rate (sessions/s)") + "rate (sessions/s)".length(),
                lines.get(2).indexOf("2.75") + "2.75".length(), lines.get(2));
        assertEquals(lines.get(1).indexOf("completed req/s") + "completed req/s".length(),
                lines.get(2).indexOf("6.29") + "6.29".length(), lines.get(2));
        String html = SearchHtml.render(doc);
        assertTrue(html.contains("<th>rate (sessions/s)</th><th>scheduled sessions/s</th><th>started sessions/s</th>"),
                html);
        assertTrue(html.contains("<th>completed req/s</th>"), html);
        assertTrue(html.contains(">Load (sessions/s)<"), html);
        assertFalse(html.contains("rate (req/s)"), html);
    }

    /**
     * The QA's tables: an estimate and its interval carry their unit, an attainment as the answer's percentage (it
     * showed 59.7 and 0.133 in one column, the answer 13.33 %); an interval without an upper end says "inf" as the
     * answer does (the tables said "-"); the requests column says it counts those judged beside those completed (the
     * rates' count: 30 judged, 32 completed); a rate page names its three rates (two columns were "req/s"); the page
     * gives the console's notes, links each level's report and lists each level's warnings.
     */
    @Test
    void tablesGiveUnitsInfinityBothCountsAndEachLevelsWarnings() {
        SearchDocument.Objective ttft = new SearchDocument.Objective("ttft<=400ms@90%", 30, 26, 0.1333, 0.0531, 0.297,
                0.9, "fraction", false, true);
        SearchDocument.Objective itl = new SearchDocument.Objective("itl_p99<=180ms", 210, 8, 289.7, 183.9, null,
                180, "ms", false, true);
        SearchDocument.Level attain = new SearchDocument.Level(4, "grow", 8, false, true, "resolved", 30, 32, 4.8,
                6.64, 66.4, 0.9, null, null, null, "ttft<=400ms@90%", List.of(ttft, itl), null, "level_04_concurrency_8",
                List.of(new SummaryDocument.WarningJson("CLIENT_BOTTLENECK", "The client's delays are material")));
        SearchDocument.Objective itlOpen = new SearchDocument.Objective("itl_p99<=180ms", 120, 3, 189.7, 150.2, null,
                180, "ms", false, false);
        SearchDocument.Level gaps = new SearchDocument.Level(5, "bisect", 6, false, false, "limit", 60, 60, 9.0, 6.6,
                66.0, 6.6, null, null, null, "itl_p99<=180ms", List.of(itlOpen, ttft), null, null, List.of());
        SearchDocument doc = new SearchDocument(SearchDocument.SCHEMA, "m", "concurrency", "concurrency",
                List.of("ttft<=400ms@90%", "itl_p99<=180ms"), "found", 4.0, null, "ttft<=400ms@90%", null, "verdict",
                List.of(), null, List.of(attain, gaps));
        List<String> lines = SearchConsole.render(doc).lines().toList();
        assertTrue(lines.get(1).contains("judged/completed  completed req/s"), lines.get(1));
        assertTrue(lines.get(2).contains("  30/32  "), lines.get(2));
        assertTrue(lines.get(2).endsWith("13.33 %  [5.31 %, 29.70 %]"), lines.get(2));
        assertTrue(lines.get(3).endsWith("189.7 ms  [150.2 ms, inf]  unresolved: itl_p99<=180ms"), lines.get(3));
        String html = SearchHtml.render(doc, l -> l.resultsDir() == null ? null : l.resultsDir() + "/m_report.html");
        assertTrue(html.contains("<td>13.33 %</td><td>[5.31 %, 29.70 %]</td>"), html);
        assertTrue(html.contains("<td>189.7 ms</td><td>[150.2 ms, inf]</td><td class=\"notes\">unresolved: "
                + "itl_p99&lt;=180ms</td>"), html);
        assertTrue(html.contains("<td>30/32</td>"), html);
        assertTrue(html.contains("<a href=\"level_04_concurrency_8/m_report.html\">8</a>"), html);
        assertTrue(html.contains("<li data-level=\"4\">Level 4 (concurrency 8): <code>CLIENT_BOTTLENECK</code> The "
                + "client&#39;s delays are material</li>") || html.contains("<li data-level=\"4\">Level 4 (concurrency "
                + "8): <code>CLIENT_BOTTLENECK</code> The client's delays are material</li>"), html);
        assertFalse(html.contains(", -]"), html);
        // a p99 that failures (+inf each) pushed to infinity: null in the JSON, "inf" in the tables
        SearchDocument.Objective failures = new SearchDocument.Objective("ttft_p99<=500ms", 13, 13, null, 794.5, null,
                500, "ms", false, false);
        assertEquals("inf", SearchConsole.estimate(failures));
        assertEquals("[794.5 ms, inf]", SearchConsole.interval(failures));
        SearchDocument.Objective none = new SearchDocument.Objective("itl_p99<=180ms", 0, 0, null, null, null, 180,
                "ms", false, false);
        assertEquals("- [-, -]", SearchConsole.estimate(none) + " " + SearchConsole.interval(none));

        SearchDocument rate = new SearchDocument(SearchDocument.SCHEMA, "m", "rate", "req/s", List.of("itl_p99<=180ms"),
                "found", 4.0, null, "itl_p99<=180ms", null, "verdict", List.of(), null, List.of(gaps));
        String rateHtml = SearchHtml.render(rate);
        assertTrue(rateHtml.contains("<th>rate (req/s)</th><th>scheduled req/s</th><th>sent req/s</th>"), rateHtml);
        assertTrue(rateHtml.contains("<th>completed req/s</th><th>goodput req/s</th>"), rateHtml);
        assertFalse(rateHtml.contains("<th>req/s</th>"), rateHtml);
    }
}
