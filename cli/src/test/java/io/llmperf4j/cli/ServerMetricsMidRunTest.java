package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's /metrics going wrong mid-run: a small server in the test serves the simulator's true /metrics until
 * the simulator has finished a number of requests, then answers 404 (QA c2mid404: "480 generation tokens, 475.3 tok/s
 * (client: 675.5)" where the truth was 4,500, the line unmarked) or serves its counters reset to 0 (a restart). The
 * console's Server line says how much of the window its counters cover, or that they are a lower bound.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerMetricsMidRunTest {
    private static final int REQUESTS = 40;
    private static final int CONCURRENCY = 4;
    private static final String BASE = "sim_40_20";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(10))
            .interTokenDelay(Duration.ofMillis(3)));

    private static CliRun run(Path dir, String metricsUrl) {
        return CliRun.of(server.env(), "token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", Integer.toString(REQUESTS), "--num-concurrent-requests",
                Integer.toString(CONCURRENCY), "--no-client-warmup", "--server-metrics", metricsUrl,
                "--server-metrics-interval", "0.05", "--results-dir", dir.toString());
    }

    private static String origin() {
        return server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
    }

    private static String serverLine(CliRun run) {
        return run.out().lines().filter(l -> l.startsWith("Server (vllm /metrics")).findFirst().orElseThrow();
    }

    @Test
    void metricsGoneMidRunMarkTheLineWithWhatTheCountersCover(@TempDir Path tmp) throws Exception {
        try (MetricsProxy metrics = new MetricsProxy(origin(), 1, 1, 10)) {
            CliRun run = run(tmp, metrics.url());
            assertEquals(0, run.exitCode(), run::toString);
            JsonNode summary = new ObjectMapper().readTree(tmp.resolve(BASE + "_llmperf4j_summary.json").toFile());
            JsonNode s = summary.get("server");
            JsonNode client = s.get("client_same_span");
            double to = s.get("counted_to_s").asDouble();
            assertTrue(to < s.get("window_s").asDouble(), s::toString);
            // the counts are the server's truth at its last answer, which it wrote at some instant inside that
            // scrape's exchange; the span ends when the client read the answer, so by then the client had received
            // at least what the server had written (less the tokens still in transit, 3 % of the window's at most).
            // How many more it received during the exchange depends on how long the exchange took on a busy machine
            // (a run on a loaded machine read 159 against 124 and failed), so that side is bounded by the window's tokens only
            long generated = s.get("generation_tokens").asLong();
            double delivered = summary.get("throughput").get("output_tokens_delivered").asDouble();
            double sameSpan = client.get("output_tokens").asDouble();
            assertTrue(generated > 0 && sameSpan >= generated - 0.03 * delivered, s::toString);
            assertEquals(delivered, sameSpan + client.get("missed_output_tokens").asDouble(), 1e-6, s::toString);
            assertTrue(generated < delivered, s::toString);
            assertTrue(client.get("missed_requests_ended").asInt() > 0, s::toString);
            String line = serverLine(run);
            assertTrue(line.contains(String.format(java.util.Locale.ROOT, "counters over %.2f of the %.2f s window",
                    to - s.get("counted_from_s").asDouble(), s.get("window_s").asDouble())), line);
            assertTrue(line.contains(generated + " generation tokens"), line);
            assertTrue(run.err().contains("the server's counters cover"), run::toString);
        }
    }

    @Test
    void countersResetMidRunMarkTheLineALowerBound(@TempDir Path tmp) throws Exception {
        try (MetricsProxy metrics = MetricsProxy.resetting(origin(), 10)) {
            CliRun run = run(tmp, metrics.url());
            assertEquals(0, run.exitCode(), run::toString);
            JsonNode summary = new ObjectMapper().readTree(tmp.resolve(BASE + "_llmperf4j_summary.json").toFile());
            JsonNode s = summary.get("server");
            assertTrue(s.get("counters_reset").asBoolean(), s::toString);
            assertTrue(s.get("generation_tokens").asLong() < REQUESTS * 20L, "what came before the reset is lost");
            String line = serverLine(run);
            assertTrue(line.startsWith("Server (vllm /metrics, counters reset mid-level: a lower bound): "), line);
        }
    }

    /**
     * The scrape at the level's end fails (the server's /metrics 404 once the run's requests are done; no periodic
     * scrape in the level, so the counters run from the window's opening to the warmup's end): one warning, the one
     * that says what the gap cost, naming the failed scrape. Before, the same cause was said four times: the scraper's
     * "failed (HTTP 404); the run goes on", the summarizer's "end is not bracketed", the client's figures over the
     * counters' span, and the timeline's "1 of 4 scrapes failed".
     */
    @Test
    void aFailedEndScrapeIsOneWarningWithWhatItCost(@TempDir Path tmp) throws Exception {
        int warmup = 6;
        try (MetricsProxy metrics = new MetricsProxy(origin(), 1, 1, REQUESTS + warmup)) {
            CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                    "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                    "--max-num-completed-requests", Integer.toString(REQUESTS), "--num-concurrent-requests",
                    Integer.toString(CONCURRENCY), "--warmup-requests", Integer.toString(warmup),
                    "--no-client-warmup", "--server-metrics", metrics.url(), "--server-metrics-interval", "60",
                    "--results-dir", tmp.toString());
            assertEquals(0, run.exitCode(), run::toString);
            java.util.List<String> failed = run.err().lines().filter(l -> l.contains("404")).toList();
            assertEquals(1, failed.size(), run::toString);
            assertTrue(failed.get(0).contains("the server's counters cover "), failed.get(0));
            assertTrue(failed.get(0).contains("; the scrape after it failed: HTTP 404)"), failed.get(0));
            assertEquals(0, run.err().lines().filter(l -> l.contains("not bracketed") || l.contains("scrapes failed")
                    || l.contains("the run goes on, the server timeline has a gap")).count(), run::toString);
            JsonNode s = new ObjectMapper().readTree(tmp.resolve(BASE + "_llmperf4j_summary.json").toFile())
                    .get("server");
            assertEquals(1, s.get("warnings").size(), s::toString);
        }
    }
}
