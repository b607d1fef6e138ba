package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The server's counts when the measured window's edges are, or are not, read by a successful scrape: a real HTTP
 * server on 127.0.0.1, scraped by the fetcher the run uses, whose /metrics answers 503 where a scrape is to fail
 * (a server down, restarting). Scrapes are stamped by hand (no clock involved).
 */
class WindowEdgesTest {

    private static final long MS = 1_000_000L;

    /** A scrape at {@code atMillis}: the server's generation and finished counters, or null for a failed scrape. */
    private record At(long atMillis, Integer generation) {
    }

    private static At ok(long atMillis, int generation) {
        return new At(atMillis, generation);
    }

    private static At failed(long atMillis) {
        return new At(atMillis, null);
    }

    private static ServerMetricsTimeline scrape(List<At> scrapes) throws Exception {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        try (TestMetricsServer server = new TestMetricsServer()) {
            ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics"));
            try (MetricsFetcher f = new MetricsFetcher(c)) {
                for (At at : scrapes) {
                    server.status = at.generation() == null ? 503 : 200;
                    server.body = at.generation() == null ? "" : vllm(at.generation());
                    try {
                        r.recordScrape(at.atMillis() * MS, 1, f.fetch());
                    } catch (ScrapeFailedException e) {
                        r.recordFailure(at.atMillis() * MS, 1, e.getMessage());
                    }
                }
            }
        }
        return r.snapshot();
    }

    /** vLLM's text: 5 tokens a request, and each request's e2e in the histogram. */
    private static String vllm(int generation) {
        int requests = generation / 5;
        return "# TYPE vllm:generation_tokens counter\n"
                + "vllm:generation_tokens_total{model_name=\"m\"} " + generation + "\n"
                + "# TYPE vllm:request_success counter\n"
                + "vllm:request_success_total{model_name=\"m\",finished_reason=\"length\"} " + requests + "\n"
                + "# TYPE vllm:e2e_request_latency_seconds histogram\n"
                + "vllm:e2e_request_latency_seconds_bucket{model_name=\"m\",le=\"1.0\"} " + requests + "\n"
                + "vllm:e2e_request_latency_seconds_bucket{model_name=\"m\",le=\"+Inf\"} " + requests + "\n"
                + "vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} " + 0.1 * requests + "\n"
                + "vllm:e2e_request_latency_seconds_count{model_name=\"m\"} " + requests + "\n";
    }

    private static String onlyWarning(ServerSideSummary s) {
        assertEquals(1, s.warnings().size(), s.warnings().toString());
        return s.warnings().get(0);
    }

    /**
     * The server died before the window's end and the scrape after the last request failed (QA: 500 tokens divided
     * by the whole 7.62 s window, no warning): the rate is over the part of the window the scrapes read, and a
     * warning says which edge, by how much, and what the counts miss.
     */
    @Test
    void aFailedFinalScrapeLeavesTheEndUnbracketedAndTheRateOverTheCoveredSpan() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(ok(0, 0), ok(1000, 100), ok(2000, 200), failed(2700)));
        ServerSideSummary s = ServerSideSummarizer.summarizeWholeLevel(t, 100 * MS, 2600 * MS, "m");
        assertEquals(200L, s.generationTokens());
        assertEquals(40L, s.requestsFinished());
        assertEquals(200 / 1.9, s.generationTokensPerS(), 1e-9, "over 0.1 s to 2.0 s, not the 2.5 s window");
        assertEquals("the measured window's end is not bracketed by a successful scrape: the last came 0.60 s before "
                + "it (the scrapes after it failed), so the server's token and request counts miss what it did in the "
                + "window's last 0.60 s; generation_tokens_per_s is over the 1.90 s of the 2.50 s window the scrapes "
                + "cover", onlyWarning(s));

        ServerSideSummary interpolated = ServerSideSummarizer.summarize(t, 100 * MS, 2600 * MS, "m");
        assertEquals(190L, interpolated.generationTokens());
        assertEquals(100.0, interpolated.generationTokensPerS(), 1e-9);
        assertTrue(onlyWarning(interpolated).startsWith("the measured window's end is not bracketed"));
    }

    /** The baseline scrape before the first send failed: the counts start at the next one, and say so. */
    @Test
    void aFailedBaselineLeavesTheStartUnbracketed() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(failed(0), ok(1000, 50), ok(2000, 150), ok(3000, 250)));
        ServerSideSummary s = ServerSideSummarizer.summarizeWholeLevel(t, 100 * MS, 2900 * MS, "m");
        assertEquals(200L, s.generationTokens());
        assertEquals(200 / 1.9, s.generationTokensPerS(), 1e-9, "over 1.0 s to 2.9 s");
        assertEquals("the measured window's start is not bracketed by a successful scrape: the first came 0.90 s "
                + "after it (the scrape before it failed), so the server's token and request "
                + "counts miss what it did in those 0.90 s; generation_tokens_per_s is over the 1.90 s of the 2.80 s "
                + "window the scrapes cover", onlyWarning(s));
    }

    /** Bracketed edges, a millisecond off by the window's wall-clock placement: no warning, the whole window. */
    @Test
    void bracketedEdgesWarnOfNothing() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(ok(1, 0), ok(1000, 100), ok(2000, 200)));
        ServerSideSummary s = ServerSideSummarizer.summarizeWholeLevel(t, 0, 1999 * MS, "m");
        assertEquals(200L, s.generationTokens());
        assertEquals(200 / 1.999, s.generationTokensPerS(), 1e-9);
        assertEquals(List.of(), s.warnings());
    }

    /**
     * A warmup that ended (at 0.3 s, scraped at 0.4 s) before the window opened (0.5 s): the counts run whole from
     * that scrape, nothing ran between it and the window's start, to the scrape after the last record.
     */
    @Test
    void aWarmupEndedBeforeTheWindowCountsFromTheScrapeAtItsEnd() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(ok(0, 0), ok(400, 40), ok(1000, 90), ok(2000, 140),
                ok(2800, 160)));
        ServerSideSummary s = ServerSideSummarizer.summarizeAfterWarmup(t, 300 * MS, 500 * MS, 2500 * MS, "m");
        assertNotNull(s);
        assertEquals(120L, s.generationTokens());
        assertEquals(60.0, s.generationTokensPerS(), 1e-9, "per second of the 2 s window");
        assertEquals(0.0, s.countedFromS(), 1e-9);
        assertEquals(2.0, s.countedToS(), 1e-9);
        assertEquals(List.of(), s.warnings());
    }

    /**
     * A warmup still running when the window opened (its last request ended at 1.2 s, the window opened at 0.5 s:
     * a closed loop re-sends as each warmup request ends): the counts start at the scrape asked for at the opening,
     * the warmup's tail after it counted (as the client's delivered tokens count it), not at the warmup's end (QA:
     * 1,140 generation tokens reported for the window's 1,380). A read 3 ms after the opening is the whole window;
     * one 20 ms after it starts the counters there, said by counted_from_s, and the run sets the client's view of
     * those 20 ms beside it.
     */
    @Test
    void aWarmupStillRunningCountsFromTheScrapeAtTheWindowsOpening() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(ok(0, 0), ok(503, 20), ok(1000, 50), ok(1210, 60), ok(2000, 110),
                ok(2800, 160)));
        ServerSideSummary s = ServerSideSummarizer.summarizeAfterWarmup(t, 1200 * MS, 500 * MS, 2500 * MS, "m");
        assertNotNull(s);
        assertEquals(140L, s.generationTokens());
        assertEquals(70.0, s.generationTokensPerS(), 1e-9);
        assertEquals(0.0, s.countedFromS(), 1e-9);
        assertEquals(List.of(), s.warnings());

        ServerMetricsTimeline late = scrape(List.of(ok(0, 0), ok(520, 22), ok(1000, 50), ok(2000, 110),
                ok(2800, 160)));
        ServerSideSummary l = ServerSideSummarizer.summarizeAfterWarmup(late, 1200 * MS, 500 * MS, 2500 * MS, "m");
        assertEquals(138L, l.generationTokens());
        assertEquals(138 / 1.98, l.generationTokensPerS(), 1e-9);
        assertEquals(0.02, l.countedFromS(), 1e-9);
        assertEquals(2.0, l.countedToS(), 1e-9);
        assertEquals(List.of(), l.warnings(), "the run warns, with what the client saw in those 20 ms");
    }

    /** The scrape at the window's opening failed: from the next successful one, with a warning. */
    @Test
    void aFailedScrapeAtTheWindowsOpeningIsSaid() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(ok(0, 0), failed(503), ok(1000, 50), ok(2000, 110),
                ok(2800, 160)));
        ServerSideSummary s = ServerSideSummarizer.summarizeAfterWarmup(t, 1200 * MS, 500 * MS, 2500 * MS, "m");
        assertNotNull(s);
        assertEquals(110L, s.generationTokens());
        assertEquals(110 / 1.5, s.generationTokensPerS(), 1e-9);
        assertEquals(0.5, s.countedFromS(), 1e-9);
        assertEquals("the scrape at the measured window's opening (the warmup's requests still running) failed: the "
                + "next successful one came 0.50 s after the window opened, so the server's token and request counts "
                + "miss what it did in those 0.50 s; generation_tokens_per_s is over the 1.50 s of the 2.00 s window "
                + "the scrapes cover", onlyWarning(s));
        ServerMetricsTimeline none = scrape(List.of(ok(0, 0), failed(503), ok(2800, 160)));
        assertEquals(null, ServerSideSummarizer.summarizeAfterWarmup(none, 1200 * MS, 500 * MS, 2500 * MS, "m"),
                "no successful scrape inside the window after its opening: the caller interpolates");
    }
}
