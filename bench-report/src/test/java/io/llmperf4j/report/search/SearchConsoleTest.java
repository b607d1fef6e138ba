package io.llmperf4j.report.search;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SearchConsoleTest {

    private static SearchDocument.Level level(int index, boolean resolved, boolean errorRateResolved) {
        return new SearchDocument.Level(index, "grow", 4, true, resolved, resolved ? "resolved" : "limit", 80, 2.0,
                40.0, 800.0, 40.0, null, null, null, "ttft_p90<=250ms", List.of(
                new SearchDocument.Objective("ttft_p90<=250ms", 80, 0, 101.0, 100.0, 103.0, 250, "ms", true, true),
                new SearchDocument.Objective("error_rate<=1%", 80, 0, 0.0, 0.0, 0.0458, 0.01, "fraction", true,
                        errorRateResolved)), null, null);
    }

    @Test
    void anEstimateLevelNamesWhatItLeftUnresolved() {
        SearchDocument doc = new SearchDocument(SearchDocument.SCHEMA, "m", "concurrency", "concurrency",
                List.of("ttft_p90<=250ms", "error_rate<=1%"), "above_range", 4.0, null, "ttft_p90<=250ms", null,
                "verdict", List.of(), null, List.of(level(1, false, false), level(2, true, true)));
        List<String> lines = SearchConsole.render(doc).lines().toList();
        assertTrue(lines.get(2).contains("pass (estimate)"), lines.get(2));
        assertTrue(lines.get(2).endsWith("[100, 103]  unresolved: error_rate<=1%"), lines.get(2));
        assertTrue(lines.get(3).endsWith("[100, 103]"), "a resolved level needs no clause: " + lines.get(3));
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
        SearchDocument.Level level = new SearchDocument.Level(7, "repeat", 6.5, false, false, "limit", 140, 20.5,
                6.84, 109.4, 6.1, 7.006956894506344, 7.006942553489932, 166.0316837699988, "ttft_p90<=300ms",
                List.of(intended), actual, "level_07_rate_6.5");
        SearchDocument doc = new SearchDocument(SearchDocument.SCHEMA, "m", "rate", "req/s",
                List.of("ttft_p90<=300ms"), "found", 6.5, null, "ttft_p90<=300ms", null, "verdict", List.of(),
                new SearchDocument.Settings(2, 1000, 0.1, "20 s", 10, 0.95, "open loop, poisson arrivals"),
                List.of(level));
        List<String> lines = SearchConsole.render(doc).lines().toList();
        assertTrue(lines.get(1).contains("rate (req/s)  scheduled      sent  verdict"), lines.get(1));
        assertTrue(lines.get(2).contains("6.50       7.01      7.01  FAIL (estimate)"), lines.get(2));
        assertTrue(lines.get(2).endsWith("[248.2, 379.5]  unresolved: ttft_p90<=300ms; client behind: from the actual "
                + "send ttft_p90<=300ms 280.8 ms, send lag p99 166.0 ms"), lines.get(2));
        String html = SearchHtml.render(doc);
        assertTrue(html.contains("6.50 (scheduled 7.01, sent 7.01)"), html);
        assertTrue(html.contains("client behind: from the actual send ttft_p90&lt;=300ms 280.8 ms"), html);
    }
}
