package io.llmperf4j.report.summary;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's prefix-cache line names the server's own /metrics rate only when the run has that rate: a run
 * without server metrics (the traces QA's: "no server metrics from .../metrics") said that a rate it did not have
 * "also counts" the failed request's prompt. One request "failed or was cancelled", several "were".
 */
class PrefixCacheLineWordsTest {

    private static final SessionsSummary HALF = new SessionsSummary(0.5, 50, 100L, 2, List.of());

    @Test
    void withoutTheServersRateTheLineDoesNotNameIt() {
        String line = SessionsSummary.consoleLine(HALF, 1, false);
        assertTrue(line.contains("server prefix-cache hit rate 50.0 % (50 of 100 prompt tokens of the successful "
                + "requests)"), line);
        assertFalse(line.contains("/metrics"), line);
    }

    @Test
    void withItOneRequestWasAndSeveralWere() {
        assertTrue(SessionsSummary.consoleLine(HALF, 1, true).contains("; the server's own /metrics rate also counts "
                + "the prompts of the 1 request that failed or was cancelled)"));
        assertTrue(SessionsSummary.consoleLine(HALF, 4, true).contains("; the server's own /metrics rate also counts "
                + "the prompts of the 4 requests that failed or were cancelled)"));
        assertEquals("", SessionsSummary.serverRateAlsoCounts(0, true), "every request succeeded: the rates agree");
    }
}
