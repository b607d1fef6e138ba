package io.llmperf4j.report.html;

import io.llmperf4j.report.summary.SessionsSummary;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The page's sessions section says what the console line says of the server's own /metrics rate. */
class SessionsSectionWordsTest {

    private static String render(long notSucceeded, boolean serverRateReported) {
        StringBuilder out = new StringBuilder();
        SessionsSection.render(new SessionsSummary(0.5, 50, 100L, 2, List.of()), notSucceeded, serverRateReported,
                out);
        return out.toString();
    }

    @Test
    void theServersRateIsNamedOnlyWhenTheRunHasIt() {
        assertFalse(render(1, false).contains("/metrics"), render(1, false));
        assertTrue(render(1, true).contains("the prompts of the 1 request that failed or was cancelled)"),
                render(1, true));
        assertTrue(render(3, true).contains("the prompts of the 3 requests that failed or were cancelled)"),
                render(3, true));
    }
}
