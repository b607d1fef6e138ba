package io.llmperf4j.servermetrics.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.llmperf4j.servermetrics.Fixtures;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerSideSummarizerTest {

    private static final long S = 1_000_000_000L;

    /** One vLLM scrape: running split over two engines, a small TTFT histogram with bounds 0.1, 0.25, 0.5, +Inf. */
    private static String vllm(int running, int waiting, double kv, double gen, double hits, double queries,
                               double[] ttftCumulative, double ttftSum) {
        StringBuilder b = new StringBuilder();
        b.append("# TYPE vllm:num_requests_running gauge\n");
        b.append("vllm:num_requests_running{engine=\"0\",model_name=\"m\"} ").append(running / 2).append('\n');
        b.append("vllm:num_requests_running{engine=\"1\",model_name=\"m\"} ").append(running - running / 2).append('\n');
        b.append("# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} ")
                .append(waiting).append('\n');
        b.append("# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} ")
                .append(kv).append('\n');
        b.append("# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{engine=\"0\",model_name=\"m\"} ")
                .append(gen).append('\n');
        b.append("# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} ")
                .append(hits).append('\n');
        b.append("# TYPE vllm:prefix_cache_queries_total counter\n")
                .append("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} ").append(queries).append('\n');
        b.append("# TYPE vllm:time_to_first_token_seconds histogram\n");
        String[] le = {"0.1", "0.25", "0.5", "+Inf"};
        for (int i = 0; i < le.length; i++) {
            b.append("vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"").append(le[i])
                    .append("\",model_name=\"m\"} ").append(ttftCumulative[i]).append('\n');
        }
        b.append("vllm:time_to_first_token_seconds_sum{engine=\"0\",model_name=\"m\"} ").append(ttftSum).append('\n');
        b.append("vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"m\"} ").append(ttftCumulative[3])
                .append('\n');
        return b.toString();
    }

    private static final double[] BEFORE = {5, 5, 5, 5};
    private static final double[] AFTER = {15, 65, 95, 105};

    private static ServerMetricsTimeline runTimeline() {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(0, 1, ExpositionParser.parse(vllm(0, 0, 0.0, 900, 50, 100, BEFORE, 0.25)));
        r.recordScrape(1 * S, 1, ExpositionParser.parse(vllm(4, 0, 0.1, 1000, 100, 400, BEFORE, 0.25)));
        r.recordScrape(2 * S, 1, ExpositionParser.parse(vllm(8, 3, 0.5, 1500, 100, 400, BEFORE, 0.25)));
        r.recordScrape(3 * S, 1, ExpositionParser.parse(vllm(8, 6, 0.9, 2000, 100, 400, BEFORE, 0.25)));
        r.recordFailure(3 * S + S / 2, 5, "timed out after 5 s");
        r.recordScrape(4 * S, 1, ExpositionParser.parse(vllm(6, 1, 0.6, 2600, 400, 1000, BEFORE, 0.25)));
        r.recordScrape(5 * S, 1, ExpositionParser.parse(vllm(2, 0, 0.2, 3000, 400, 1000, AFTER, 20.25)));
        r.recordScrape(6 * S, 1, ExpositionParser.parse(vllm(0, 0, 0.95, 3000, 400, 1000, AFTER, 20.25)));
        return r.snapshot();
    }

    /** One llama-server --metrics scrape: counters with _total, gauges, no labels, no histograms. */
    private static String llamacpp(double predicted, double prompt, int processing, int deferred, double kv) {
        return "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
                + "# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total " + prompt + "\n"
                + "# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total " + predicted + "\n"
                + "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing " + processing + "\n"
                + "# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred " + deferred + "\n"
                + "# TYPE llamacpp:kv_cache_usage_ratio gauge\nllamacpp:kv_cache_usage_ratio " + kv + "\n";
    }

    /** Every queue time 0, all in the first bucket: interpolation would say p50 0.15 s; the mean 0 caps it at 0. */
    @Test
    void quantilesNeverExceedWhatTheMeanAllows() {
        String zeros = "# TYPE vllm:request_queue_time_seconds histogram\n"
                + "vllm:request_queue_time_seconds_bucket{le=\"0.3\",model_name=\"m\"} %d\n"
                + "vllm:request_queue_time_seconds_bucket{le=\"+Inf\",model_name=\"m\"} %d\n"
                + "vllm:request_queue_time_seconds_sum{model_name=\"m\"} 0\n"
                + "vllm:request_queue_time_seconds_count{model_name=\"m\"} %d\n";
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(0, 1, ExpositionParser.parse(String.format(zeros, 0, 0, 0)));
        r.recordScrape(S, 1, ExpositionParser.parse(String.format(zeros, 10, 10, 10)));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, S, "m");
        assertEquals(10, s.queueTime().observations());
        assertEquals(0.0, s.queueTime().meanS());
        assertEquals(0.0, s.queueTime().p50S());
        assertEquals(0.0, s.queueTime().p99S());
        assertEquals(List.of("p50", "p90", "p99"), s.queueTime().upperBoundQuantiles(), "each is the cap");
    }

    /**
     * QA: every queue wait about 0.1 ms, in a first bucket 0-300 ms wide, read "p99 10.56 ms" as if measured: it is
     * Markov's cap mean / (1 - q), an upper bound, and says so; the same waits in a bucket as narrow as they are were
     * interpolated, no bound.
     */
    @Test
    void aQuantileAtTheMeansCapIsMarkedAnUpperBound() {
        String waits = "# TYPE vllm:request_queue_time_seconds histogram\n"
                + "vllm:request_queue_time_seconds_bucket{le=\"%s\",model_name=\"m\"} %d\n"
                + "vllm:request_queue_time_seconds_bucket{le=\"+Inf\",model_name=\"m\"} %d\n"
                + "vllm:request_queue_time_seconds_sum{model_name=\"m\"} %s\n"
                + "vllm:request_queue_time_seconds_count{model_name=\"m\"} %d\n";
        for (String le : List.of("0.3", "0.0002")) {
            ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
            r.recordScrape(0, 1, ExpositionParser.parse(String.format(waits, le, 0, 0, "0", 0)));
            r.recordScrape(S, 1, ExpositionParser.parse(String.format(waits, le, 100, 100, "0.01056", 100)));
            ServerLatency queue = ServerSideSummarizer.summarize(r.snapshot(), 0, S, "m").queueTime();
            if (le.equals("0.3")) {
                assertEquals(0.01056, queue.p99S(), 1e-12);
                assertEquals(List.of("p50", "p90", "p99"), queue.upperBoundQuantiles());
                assertTrue(queue.isUpperBound("p99"));
            } else {
                assertEquals(0.000198, queue.p99S(), 1e-12);
                assertEquals(List.of(), queue.upperBoundQuantiles());
            }
        }
    }

    @Test
    void llamaCppIsAKnownEngineWithoutModelLabels() {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(0, 1, ExpositionParser.parse(llamacpp(10, 20, 0, 0, 0)));
        r.recordScrape(S, 1, ExpositionParser.parse(llamacpp(210, 260, 4, 2, 0.35)));
        r.recordScrape(2 * S, 1, ExpositionParser.parse(llamacpp(490, 620, 0, 0, 0)));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, 2 * S, "m");
        assertEquals("llamacpp", s.engine());
        assertEquals(480L, s.generationTokens());
        assertEquals(600L, s.promptTokens());
        assertEquals(4.0, s.peakRequestsRunning());
        assertEquals(2.0, s.peakRequestsWaiting());
        assertEquals(0.35, s.peakKvCacheUsage());
    }

    @Test
    void vllmWindowFromGaugePeaksCounterAndHistogramIncreases() {
        ServerSideSummary s = ServerSideSummarizer.summarize(runTimeline(), 1 * S, 5 * S);
        assertEquals("vllm", s.engine());
        assertEquals(6, s.scrapesInWindow());
        assertEquals(1, s.failedScrapesInWindow());
        assertEquals(4.0, s.windowS());
        assertEquals(4.0, s.scrapeSpanS());
        assertEquals(8.0, s.peakRequestsRunning(), "summed over engine=0 and engine=1");
        assertEquals(6.0, s.peakRequestsWaiting());
        assertEquals(0.9, s.peakKvCacheUsage(), "0.95 at 6 s is after the window");
        assertEquals(0.5, s.prefixCacheHitRate(), "(400-100) / (1000-400)");
        assertEquals(2000L, s.generationTokens());
        assertEquals(500.0, s.generationTokensPerS());
        assertNull(s.promptTokens());
        assertNull(s.e2eRequestLatency());
        ServerLatency ttft = s.ttft();
        assertEquals(100, ttft.observations());
        assertEquals(0.2, ttft.meanS(), 1e-12);
        assertEquals(0.1 + 0.15 * 40 / 50, ttft.p50S(), 1e-12, "bucket deltas 10/60/90/100, rank 50 in (0.1, 0.25]");
        assertEquals(0.5, ttft.p90S(), 1e-12);
        assertEquals(0.5, ttft.p99S(), 1e-12, "in the +Inf bucket: the highest finite bound");
        assertEquals("vllm:time_to_first_token_seconds", s.families().get("ttft"));
        assertEquals("vllm:kv_cache_usage_perc", s.families().get("kv_cache_usage"));
        assertEquals("vllm:generation_tokens", s.families().get("generation_tokens"));
    }

    @Test
    void counterResetCountsWhatCameAfterIt() {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        double[] h = {0, 0, 0, 0};
        r.recordScrape(0, 1, ExpositionParser.parse(vllm(0, 0, 0, 1000, 0, 0, h, 0)));
        r.recordScrape(S, 1, ExpositionParser.parse(vllm(0, 0, 0, 1500, 0, 0, h, 0)));
        r.recordScrape(2 * S, 1, ExpositionParser.parse(vllm(0, 0, 0, 200, 0, 0, h, 0)));
        r.recordScrape(3 * S, 1, ExpositionParser.parse(vllm(0, 0, 0, 700, 0, 0, h, 0)));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, 3 * S);
        assertEquals(1200L, s.generationTokens());
        assertEquals(400.0, s.generationTokensPerS());
        assertNull(s.prefixCacheHitRate(), "no queries in the window: no rate");
        assertEquals(new ServerLatency(0, null, null, null, null), s.ttft());
    }

    @Test
    void countersAreInterpolatedToTheWindowsEdgesSoWarmupAndIdleTimeAreLeftOut() {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        double[] h = {0, 0, 0, 0};
        double[] after = {1, 2, 3, 4};
        r.recordScrape(0, 1, ExpositionParser.parse(vllm(0, 0, 0, 0, 0, 0, h, 0)));
        r.recordScrape(S, 1, ExpositionParser.parse(vllm(0, 0, 0, 1000, 0, 0, h, 0)));
        r.recordScrape(2 * S, 1, ExpositionParser.parse(vllm(0, 0, 0, 1500, 0, 0, h, 0)));
        r.recordScrape(3 * S, 1, ExpositionParser.parse(vllm(0, 0, 0, 2000, 0, 0, h, 0)));
        r.recordScrape(4 * S, 1, ExpositionParser.parse(vllm(0, 0, 0, 2500, 0, 0, after, 1)));
        r.recordScrape(5 * S, 1, ExpositionParser.parse(vllm(0, 0, 0, 2500, 0, 0, after, 1)));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 3 * S / 2, 7 * S / 2);
        assertEquals(1000L, s.generationTokens(), "half of 1..2 s, all of 2..3 s, half of 3..4 s");
        assertEquals(500.0, s.generationTokensPerS());
        assertEquals(2.0, s.windowS());
        assertEquals(3.0, s.scrapeSpanS());
        assertEquals(4, s.ttft().observations(), "histograms count whole requests over the bracketing scrapes");

        ServerSideSummary beyond = ServerSideSummarizer.summarize(r.snapshot(), 4 * S, 8 * S);
        assertEquals(0L, beyond.generationTokens());
        assertEquals(0.0, beyond.generationTokensPerS(), "over the 1 s the scrapes cover, not the 4 s window");
    }

    @Test
    void oneScrapeOnlyGivesGaugesButNoIncreases() {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(S, 1, ExpositionParser.parse(Fixtures.exposition("vllm-0.0.4.txt")));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, 2 * S);
        assertEquals(12.0, s.peakRequestsRunning());
        assertEquals(0.4508602, s.peakKvCacheUsage());
        assertNull(s.scrapeSpanS());
        assertNull(s.generationTokensPerS());
        assertNull(s.ttft());
    }

    @Test
    void sglangUsesCachedOverPromptTokens() {
        String a = Fixtures.exposition("sglang-0.0.4.txt");
        String b = a.replace("sglang:cached_tokens_total{engine_type=\"unified\",model_name=\"Qwen/Qwen2.5-7B-Instruct\",pp_rank=\"0\",tp_rank=\"0\"} 20000.0",
                        "sglang:cached_tokens_total{engine_type=\"unified\",model_name=\"Qwen/Qwen2.5-7B-Instruct\",pp_rank=\"0\",tp_rank=\"0\"} 23000.0")
                .replace("} 80000.0", "} 84000.0")
                .replace("} 64000.0", "} 66000.0");
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(0, 1, ExpositionParser.parse(a));
        r.recordScrape(S, 1, ExpositionParser.parse(a)); // inside the window: the gauges are read from it
        r.recordScrape(2 * S, 1, ExpositionParser.parse(b));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, 2 * S);
        assertEquals("sglang", s.engine());
        assertEquals(0.75, s.prefixCacheHitRate(), "3000 cached of 4000 prompt tokens");
        assertEquals(4000L, s.promptTokens());
        assertEquals(1000.0, s.generationTokensPerS());
        assertEquals(24.0, s.peakRequestsRunning());
        assertEquals(7.0, s.peakRequestsWaiting());
        assertEquals(0.61, s.peakKvCacheUsage());
        assertEquals(0, s.ttft().observations());
    }

    @Test
    void tgiHasNoTtftButCountsGeneratedTokensByItsHistogramSum() {
        String a = Fixtures.exposition("tgi-0.0.4.txt");
        String b = a.replace("tgi_request_generated_tokens_sum 73800", "tgi_request_generated_tokens_sum 75800");
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(0, 1, ExpositionParser.parse(a));
        r.recordScrape(2 * S, 1, ExpositionParser.parse(a)); // inside the window: the gauges are read from it
        r.recordScrape(4 * S, 1, ExpositionParser.parse(b));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, 4 * S);
        assertEquals("tgi", s.engine());
        assertEquals(2000L, s.generationTokens());
        assertEquals(500.0, s.generationTokensPerS());
        assertEquals(32.0, s.peakRequestsRunning());
        assertEquals(5.0, s.peakRequestsWaiting());
        assertNull(s.peakKvCacheUsage());
        assertNull(s.ttft());
        assertEquals(new ServerLatency(0, null, null, null, null), s.e2eRequestLatency());
        assertEquals("tgi_request_generated_tokens", s.families().get("generation_tokens"));
    }

    @Test
    void serverWithoutKnownFamiliesHasOnlyScrapeCounts() {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(0, 1, ExpositionParser.parse("process_cpu_seconds_total 1\n"));
        r.recordScrape(S, 1, ExpositionParser.parse("process_cpu_seconds_total 2\n"));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, S);
        assertNull(s.engine());
        assertEquals(2, s.scrapesInWindow());
        assertNull(s.generationTokensPerS());
        assertNull(s.peakRequestsRunning());
    }

    @Test
    void onlyTheIdleEdgeScrapesLeaveThePeaksNotObservedNotZero() {
        // a short level: the baseline scrape before the first send and the final one after the last response, both
        // idle, while the server ran 4 and queued 4 between them
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        double[] h = {0, 0, 0, 0};
        r.recordScrape(0, 1, ExpositionParser.parse(vllm(0, 0, 0.0, 0, 0, 0, h, 0)));
        r.recordScrape(8 * S / 10, 1, ExpositionParser.parse(vllm(0, 0, 0.0, 800, 0, 0, h, 0)));
        ServerSideSummary s = ServerSideSummarizer.summarize(r.snapshot(), 0, 8 * S / 10);
        assertEquals(2, s.scrapesInWindow());
        assertEquals(0, s.scrapesInsideWindow());
        assertNull(s.peakRequestsRunning(), "not observed, not 0");
        assertNull(s.peakRequestsWaiting());
        assertNull(s.peakKvCacheUsage());
        assertEquals(800L, s.generationTokens(), "the counters still bracket the window");
        assertTrue(s.peaksUnobserved());
        assertEquals("no scrape inside the 0.8 s window, only at its edges; --server-metrics-interval to sample "
                + "faster", s.unobservedPeaksReason());

        ServerSideSummary full = ServerSideSummarizer.summarize(runTimeline(), 1 * S, 5 * S);
        assertEquals(3, full.scrapesInsideWindow());
        assertFalse(full.peaksUnobserved());
    }

    @Test
    void serializesWithTheSummarysSnakeCaseAndNulls() throws Exception {
        ServerSideSummary s = ServerSideSummarizer.summarize(runTimeline(), 1 * S, 5 * S);
        ObjectMapper mapper = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        JsonNode json = mapper.readTree(mapper.writeValueAsString(s));
        assertEquals(500.0, json.get("generation_tokens_per_s").asDouble());
        assertEquals(0.9, json.get("peak_kv_cache_usage").asDouble());
        assertEquals(0.5, json.get("ttft").get("p90_s").asDouble());
        assertEquals(100, json.get("ttft").get("observations").asInt());
        assertEquals(4.0, json.get("scrape_span_s").asDouble());
        assertEquals(true, json.get("e2e_request_latency").isNull());
        assertEquals("vllm:time_to_first_token_seconds", json.get("families").get("ttft").asText());
        assertEquals(List.of("engine", "scrapes_in_window", "failed_scrapes_in_window", "window_s", "scrape_span_s",
                        "peak_requests_running", "peak_requests_waiting", "peak_kv_cache_usage", "prefix_cache_hit_rate",
                        "prompt_tokens", "generation_tokens", "generation_tokens_per_s", "requests_finished", "ttft",
                        "inter_token_latency", "e2e_request_latency", "queue_time", "families", "quantile_method",
                        "window_start_s", "scrapes_inside_window", "model", "warnings", "counted_from_s",
                        "counted_to_s", "counters_reset", "missing_families", "sample_interval_s", "client_same_span",
                        "opening_scrape_s", "closing_scrape_s"),
                fieldNames(json));
        assertEquals(0.0, json.get("counted_from_s").asDouble(), "the scrape at 1 s opens the window");
        assertEquals(4.0, json.get("counted_to_s").asDouble());
        assertEquals(3, json.get("scrapes_inside_window").asInt(), "2, 3 and 4 s; not the edges at 1 and 5 s");
        assertEquals(1.0, json.get("window_start_s").asDouble(), "the window's start on the scrapes' axis");
    }

    @Test
    void readsBackFromItsJson() throws Exception {
        ServerSideSummary s = ServerSideSummarizer.summarize(runTimeline(), 1 * S, 5 * S);
        ObjectMapper mapper = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        assertEquals(s, mapper.readValue(mapper.writeValueAsString(s), ServerSideSummary.class));
    }

    @Test
    void schemaFragmentNamesExactlyTheSerializedKeys() throws Exception {
        ObjectMapper mapper = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        JsonNode schema;
        try (var in = ServerSideSummary.class.getResourceAsStream("server-summary.schema.json")) {
            schema = mapper.readTree(in);
        }
        JsonNode json = mapper.readTree(mapper.writeValueAsString(
                ServerSideSummarizer.summarize(runTimeline(), 1 * S, 5 * S)));
        assertEquals(fieldNames(json), fieldNames(schema.get("properties")));
        List<String> required = new ArrayList<>();
        schema.get("required").forEach(n -> required.add(n.asText()));
        List<String> keys = fieldNames(json);
        keys.remove("window_start_s"); // optional: summaries written before it lack it
        keys.remove("scrapes_inside_window"); // the same
        keys.remove("model"); // the same
        keys.remove("warnings"); // the same
        keys.removeAll(List.of("counted_from_s", "counted_to_s", "counters_reset", "missing_families",
                "sample_interval_s", "client_same_span", "opening_scrape_s", "closing_scrape_s")); // the same
        assertEquals(keys, required);
        assertEquals(fieldNames(json.get("ttft")), fieldNames(schema.get("properties").get("ttft").get("properties")));
    }

    @Test
    void chartsFollowTheClientsTimeAxis() {
        ServerTimeSeries c = ServerTimeSeries.of(runTimeline());
        assertEquals("vllm", c.engine());
        assertEquals(List.of(0.0, 4.0, 8.0, 8.0, 6.0, 2.0, 0.0),
                c.requestsRunning().stream().map(TimedValue::value).toList());
        assertEquals(List.of(3.5), c.gaps());
        assertEquals(new TimedValue(1.0, 100.0), c.generationTokensPerS().get(0));
        assertEquals(new TimedValue(4.0, 600.0), c.generationTokensPerS().get(3));
        assertEquals(new TimedValue(6.0, 0.95), c.kvCacheUsage().get(6));
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
