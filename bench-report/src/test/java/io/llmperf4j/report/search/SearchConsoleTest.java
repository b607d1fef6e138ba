package io.llmperf4j.report.search;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SearchConsoleTest {

    private static SearchDocument.Level level(int index, boolean resolved, boolean errorRateResolved) {
        return new SearchDocument.Level(index, "grow", 4, true, resolved, resolved ? "resolved" : "limit", 80, 2.0,
                40.0, 800.0, 40.0, "ttft_p90<=250ms", List.of(
                new SearchDocument.Objective("ttft_p90<=250ms", 80, 0, 101.0, 100.0, 103.0, 250, "ms", true, true),
                new SearchDocument.Objective("error_rate<=1%", 80, 0, 0.0, 0.0, 0.0458, 0.01, "fraction", true,
                        errorRateResolved)), null);
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
}
