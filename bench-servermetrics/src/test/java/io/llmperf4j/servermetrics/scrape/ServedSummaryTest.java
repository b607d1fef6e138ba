package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.summary.ServerTimeSeries;
import io.llmperf4j.servermetrics.summary.TimedValue;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The server section from what a real HTTP server on 127.0.0.1 serves at /metrics, scraped by the fetcher the run
 * uses: one model's series among several, a counter reset, histograms of different bucket layouts, llama.cpp.
 * Scrapes are stamped 1 s apart by hand (no clock involved); the window is the whole span.
 */
class ServedSummaryTest {

    private static final long S = 1_000_000_000L;

    /** Scrapes {@code bodies} one after another from a real server, stamped 0, 1, 2 ... s. */
    private static ServerMetricsTimeline scrape(List<String> bodies) throws Exception {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        try (TestMetricsServer server = new TestMetricsServer()) {
            ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(server.url("/v1"), null)
                    .withMetricsUrl(server.url("/metrics"));
            try (MetricsFetcher f = new MetricsFetcher(c)) {
                for (int i = 0; i < bodies.size(); i++) {
                    server.body = bodies.get(i);
                    r.recordScrape(i * S, 1, f.fetch());
                }
            }
        }
        return r.snapshot();
    }

    /** vLLM's text for models m and other: generation tokens, running, and a TTFT histogram of the given bounds. */
    private static String vllm(double genM, double genOther, int runningM, double[] ttftM, double[] ttftOther,
                               String[] boundsM, String[] boundsOther) {
        StringBuilder b = new StringBuilder();
        b.append("# TYPE vllm:num_requests_running gauge\n");
        b.append("vllm:num_requests_running{engine=\"0\",model_name=\"m\"} ").append(runningM).append('\n');
        b.append("vllm:num_requests_running{engine=\"0\",model_name=\"other\"} 3\n");
        b.append("# TYPE vllm:generation_tokens counter\n");
        b.append("vllm:generation_tokens_total{engine=\"0\",model_name=\"m\"} ").append(genM).append('\n');
        b.append("vllm:generation_tokens_total{engine=\"0\",model_name=\"other\"} ").append(genOther).append('\n');
        b.append("# TYPE vllm:time_to_first_token_seconds histogram\n");
        histogram(b, "m", boundsM, ttftM);
        histogram(b, "other", boundsOther, ttftOther);
        return b.toString();
    }

    private static void histogram(StringBuilder b, String model, String[] bounds, double[] cumulative) {
        String labels = "engine=\"0\",model_name=\"" + model + "\"";
        for (int i = 0; i < bounds.length; i++) {
            b.append("vllm:time_to_first_token_seconds_bucket{").append(labels).append(",le=\"").append(bounds[i])
                    .append("\"} ").append(cumulative[i]).append('\n');
        }
        b.append("vllm:time_to_first_token_seconds_count{").append(labels).append("} ")
                .append(cumulative[bounds.length - 1]).append('\n');
        b.append("vllm:time_to_first_token_seconds_sum{").append(labels).append("} ").append(0.1 * cumulative[
                bounds.length - 1]).append('\n');
    }

    private static final String[] FINE = {"0.05", "0.1", "0.2", "+Inf"};
    private static final String[] COARSE = {"1", "5", "+Inf"};
    private static final double[] NONE_FINE = {0, 0, 0, 0};
    private static final double[] NONE_COARSE = {0, 0, 0};

    @Test
    void theRunsModelsSeriesAloneWhereTheServerLabelsThemByModel() throws Exception {
        // m: 480 tokens, 10 TTFTs in (0.05, 0.1]; other (traffic not ours): 140 tokens, 10 TTFTs in (1, 5]
        ServerMetricsTimeline t = scrape(List.of(
                vllm(1000, 500, 0, NONE_FINE, NONE_FINE, FINE, FINE),
                vllm(1240, 570, 4, new double[]{0, 5, 5, 5}, NONE_FINE, FINE, FINE),
                vllm(1480, 640, 0, new double[]{0, 10, 10, 10}, new double[]{0, 0, 0, 10}, FINE, FINE)));
        ServerSideSummary s = ServerSideSummarizer.summarize(t, 0, 2 * S, "m");
        assertEquals("m", s.model());
        assertEquals(480L, s.generationTokens(), "m's counter alone, not 620 with the other model's 140");
        assertEquals(4.0, s.peakRequestsRunning(), "m's running, not 7 with other's 3");
        assertEquals(10, s.ttft().observations());
        assertEquals(0.075, s.ttft().p50S(), 1e-9, "halfway through m's (0.05, 0.1] bucket");
        assertEquals(List.of(), s.warnings());

        ServerSideSummary absent = ServerSideSummarizer.summarize(t, 0, 2 * S, "llama");
        assertNull(absent.model());
        assertEquals(620L, absent.generationTokens(), "no series of llama: every model's, and said so");
        assertEquals(List.of("no series labelled model_name=\"llama\" (the server's: m, other): the figures add up "
                + "every model's series, so other traffic on the server is included"), absent.warnings());
    }

    /**
     * The page's time series read the series the summary read: m's alone where the server labels them by model
     * (running 4, not 7 with the other model's 3; 240 tokens/s, not 310), every model's otherwise.
     */
    @Test
    void theTimeSeriesSelectTheSeriesTheSummaryDid() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(
                vllm(1000, 500, 0, NONE_FINE, NONE_FINE, FINE, FINE),
                vllm(1240, 570, 4, NONE_FINE, NONE_FINE, FINE, FINE),
                vllm(1480, 640, 0, NONE_FINE, NONE_FINE, FINE, FINE)));
        ServerSideSummary summary = ServerSideSummarizer.summarize(t, 0, 2 * S, "m");
        ServerTimeSeries m = ServerTimeSeries.of(t, summary.model());
        assertEquals("m", m.model());
        assertEquals(List.of(0.0, 4.0, 0.0), m.requestsRunning().stream().map(TimedValue::value).toList());
        assertEquals(List.of(240.0, 240.0), m.generationTokensPerS().stream().map(TimedValue::value).toList());
        assertEquals(summary.peakRequestsRunning(), m.requestsRunning().get(1).value(), "the chart's peak is the "
                + "summary's");

        ServerSideSummary absent = ServerSideSummarizer.summarize(t, 0, 2 * S, "llama");
        ServerTimeSeries all = ServerTimeSeries.of(t, absent.model());
        assertNull(all.model(), "no series of llama: every model's, as the summary (which warns)");
        assertEquals(List.of(3.0, 7.0, 3.0), all.requestsRunning().stream().map(TimedValue::value).toList());
        assertEquals(List.of(310.0, 310.0), all.generationTokensPerS().stream().map(TimedValue::value).toList());
        assertEquals(all, ServerTimeSeries.of(t, "llama"));
        assertEquals(all, ServerTimeSeries.of(t));
    }

    /**
     * A level without warmup, in one pass: the counters whole from the first scrape to the last (480 of m's tokens,
     * over the 1 s window: 480 tok/s), the peak only from the scrape inside the window (at 1 s), the window's own
     * length and start.
     */
    @Test
    void aWholeLevelsCountersAndTheWindowsPeaksInOnePass() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(
                vllm(1000, 500, 9, NONE_FINE, NONE_FINE, FINE, FINE),
                vllm(1240, 570, 4, new double[]{0, 5, 5, 5}, NONE_FINE, FINE, FINE),
                vllm(1480, 640, 9, new double[]{0, 10, 10, 10}, NONE_FINE, FINE, FINE)));
        ServerSideSummary s = ServerSideSummarizer.summarizeWholeLevel(t, S / 2, 3 * S / 2, "m");
        assertEquals("m", s.model());
        assertEquals(480L, s.generationTokens(), "whole: from the baseline scrape to the final one");
        assertEquals(480.0, s.generationTokensPerS(), 1e-9, "per second of the 1 s window");
        assertEquals(1.0, s.windowS(), 1e-12);
        assertEquals(0.5, s.windowStartS(), 1e-12);
        assertEquals(4.0, s.peakRequestsRunning(), "the scrape inside the window, not the edges' 9");
        assertEquals(1, s.scrapesInsideWindow());
        assertEquals(3, s.scrapesInWindow(), "every scrape of the level");
        assertEquals(10, s.ttft().observations());
        assertEquals(List.of(), s.warnings());

        ServerSideSummary window = ServerSideSummarizer.summarize(t, S / 2, 3 * S / 2, "m");
        assertEquals(240L, window.generationTokens(), "the window alone: interpolated to its edges");
    }

    @Test
    void bucketsAreNotMergedAcrossLayouts() throws Exception {
        // no model given: m (fine buckets, 10 in (0.05, 0.1]) and other (coarse buckets, 30 in (1, 5]) are added
        // up, but never bucket by bucket across layouts: the quantiles are the 30 coarse ones', said so
        ServerMetricsTimeline t = scrape(List.of(
                vllm(0, 0, 0, NONE_FINE, NONE_COARSE, FINE, COARSE),
                vllm(10, 30, 0, new double[]{0, 10, 10, 10}, new double[]{0, 30, 30}, FINE, COARSE)));
        ServerSideSummary s = ServerSideSummarizer.summarize(t, 0, S);
        assertEquals(40, s.ttft().observations());
        assertEquals(3.0, s.ttft().p50S(), 1e-9, "the coarse layout's median, halfway through (1, 5]");
        assertTrue(s.warnings().contains("ttft: the server's vllm:time_to_first_token_seconds series use 2 different "
                + "bucket layouts; buckets are not merged across layouts, so its quantiles come from the one with the "
                + "most observations (30 of 40)"), s.warnings().toString());
        // merged by le, the bounds 0.05, 0.1, 0.2, 1, 5, +Inf held 0, 10, 10, 0, 30, 40: not cumulative, and a
        // p50 of 0.2 s made of the two
        assertEquals(4.96, s.ttft().p99S(), 1e-9);
    }

    @Test
    void aCounterThatGoesBackIsARestartCountedFromZeroAndSaid() throws Exception {
        // 100 -> 300 (+200), restart, -> 50 (+50 counted from 0), -> 150 (+100): 350
        ServerMetricsTimeline t = scrape(List.of(
                vllm(100, 0, 0, NONE_FINE, NONE_FINE, FINE, FINE),
                vllm(300, 0, 0, NONE_FINE, NONE_FINE, FINE, FINE),
                vllm(50, 0, 0, NONE_FINE, NONE_FINE, FINE, FINE),
                vllm(150, 0, 0, NONE_FINE, NONE_FINE, FINE, FINE)));
        ServerSideSummary s = ServerSideSummarizer.summarize(t, 0, 3 * S, "m");
        assertEquals(350L, s.generationTokens());
        assertEquals(List.of("a counter went back between the scrapes at 1.0 s and 2.0 s: the server restarted during "
                + "the level (or reset its metrics); counted from 0 after it, as Prometheus' increase() does, but what "
                + "it did between the scrape before and the restart is lost, so its token and request counts are low"),
                s.warnings());
    }

    private static String llamacpp(double prompt, double predicted, int processing, int deferred, double kv) {
        return String.format(Locale.ROOT, """
                # HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
                # TYPE llamacpp:prompt_tokens_total counter
                llamacpp:prompt_tokens_total %s
                # TYPE llamacpp:tokens_predicted_total counter
                llamacpp:tokens_predicted_total %s
                # TYPE llamacpp:requests_processing gauge
                llamacpp:requests_processing %d
                # TYPE llamacpp:requests_deferred gauge
                llamacpp:requests_deferred %d
                # TYPE llamacpp:kv_cache_usage_ratio gauge
                llamacpp:kv_cache_usage_ratio %s
                """, prompt, predicted, processing, deferred, kv);
    }

    private static String tgi(double generated, int batch, int queue) {
        return String.format(Locale.ROOT, """
                # TYPE tgi_batch_current_size gauge
                tgi_batch_current_size %d
                # TYPE tgi_queue_size gauge
                tgi_queue_size %d
                # TYPE tgi_request_generated_tokens histogram
                tgi_request_generated_tokens_bucket{le="+Inf"} 1
                tgi_request_generated_tokens_sum %s
                tgi_request_generated_tokens_count 1
                """, batch, queue, generated);
    }

    @Test
    void withoutAModelLabelTheWholeServersFiguresAndSaid() throws Exception {
        ServerMetricsTimeline t = scrape(List.of(tgi(20, 0, 0), tgi(260, 4, 2), tgi(500, 0, 0)));
        ServerSideSummary s = ServerSideSummarizer.summarize(t, 0, 2 * S, "m");
        assertEquals("tgi", s.engine());
        assertEquals(480L, s.generationTokens());
        assertEquals(4.0, s.peakRequestsRunning());
        assertNull(s.model());
        assertEquals(List.of("the server's series carry no model label: the figures are the whole server's, so traffic "
                + "other than this run's is included"), s.warnings());
    }

    @Test
    void noKnownNamesLeavesTheEngineUnknown() throws Exception {
        String other = "# TYPE myserver:tokens_out_total counter\nmyserver:tokens_out_total 20\n"
                + "# TYPE myserver:busy gauge\nmyserver:busy 0\n";
        ServerMetricsTimeline t = scrape(List.of(other, other));
        ServerSideSummary s = ServerSideSummarizer.summarize(t, 0, S, "m");
        assertTrue(s.unknownEngine());
        assertNull(s.generationTokens());
    }
}
