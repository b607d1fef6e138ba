package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.servermetrics.csv.ServerMetricsCsvReader;
import io.llmperf4j.servermetrics.csv.ServerMetricsCsvWriter;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's side of a run end to end (issue 19), against the embedded simulator, which serves vLLM-named
 * {@code /metrics} with true counts: the level's {@code <base>_server_metrics.csv}, the summary's {@code server}
 * section (the server's generation tokens equal the client's server-usage output tokens) and its console line; a URL
 * without metrics is one warning and exit 0; {@code --no-server-metrics} leaves no trace.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerMetricsCommandTest {
    private static final int CONCURRENCY = 3;
    private static final int REQUESTS = 9;
    private static final String BASE = "sim_40_12";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(2)));

    @Test
    void byDefaultTheServersMetricsAreScrapedWrittenAndSummarised(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp, "--server-metrics-interval", "0.1");
        assertEquals(0, run.exitCode(), run::toString);

        Path csv = tmp.resolve(BASE + ServerMetricsCsvWriter.SUFFIX);
        assertTrue(Files.exists(csv), run::toString);
        assertEquals("time_s,name,labels,value", Files.readAllLines(csv).get(0));
        ServerMetricsTimeline timeline = ServerMetricsCsvReader.read(csv);
        assertTrue(timeline.successfulScrapes().size() >= 2, "a baseline and a final scrape at least");

        JsonNode summary = summary(tmp);
        JsonNode server = summary.get("server");
        assertEquals("vllm", server.get("engine").asText(), server::toString);
        long clientTokens = summary.get("throughput").get("total_output_tokens").asLong();
        assertEquals(REQUESTS, summary.get("token_counting").get("output_token_source_counts").get("server_usage").asInt(),
                "every output count is the server's usage");
        assertEquals(REQUESTS * 12L, clientTokens);
        assertEquals(clientTokens, server.get("generation_tokens").asLong(), server::toString);
        assertEquals(REQUESTS, server.get("requests_finished").asInt(), server::toString);
        assertEquals(REQUESTS, server.get("ttft").get("observations").asInt(), server::toString);
        double peakRunning = server.get("peak_requests_running").asDouble();
        assertTrue(peakRunning >= 0 && peakRunning <= CONCURRENCY, server::toString);
        assertEquals(summary.get("throughput").get("output_tokens_per_s").asDouble(),
                server.get("generation_tokens_per_s").asDouble(), 1e-6, "the same tokens over the same window");
        assertTrue(run.out().contains("Server (vllm /metrics): " + clientTokens + " generation tokens"), run::toString);
        assertFalse(run.err().contains("warning"), run::toString);
    }

    /**
     * A level shorter than the scrape interval: its counters come from the baseline and final scrapes, but no scrape
     * fell inside its window, so its peaks are not observed (null), not the idle server's 0 read after the run (QA).
     */
    @Test
    void aLevelShorterThanTheScrapeIntervalHasNoPeaks(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp, "--server-metrics-interval", "30");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = summary(tmp);
        JsonNode server = summary.get("server");
        assertEquals(0, server.get("scrapes_inside_window").asInt(), server::toString);
        assertTrue(server.get("peak_requests_running").isNull(), server::toString);
        assertTrue(server.get("peak_requests_waiting").isNull(), server::toString);
        assertEquals(summary.get("throughput").get("total_output_tokens").asLong(),
                server.get("generation_tokens").asLong(), "the counters still span the whole level");
        assertTrue(run.out().contains("not observed"), run::toString);
    }

    @Test
    void aUrlWithoutMetricsIsOneWarningAndTheRunGoesOn(@TempDir Path tmp) throws IOException {
        String origin = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
        CliRun run = run(tmp, "--server-metrics", origin + "/no-metrics-here");
        assertEquals(0, run.exitCode(), run::toString);
        List<String> warnings = run.err().lines().filter(l -> l.contains("no server metrics")).toList();
        assertEquals(1, warnings.size(), run::toString);
        assertTrue(warnings.get(0).contains("/no-metrics-here"), warnings::toString);
        assertFalse(Files.exists(tmp.resolve(BASE + ServerMetricsCsvWriter.SUFFIX)));
        assertFalse(summary(tmp).has("server"), "the key is absent when nothing was scraped");
    }

    @Test
    void noServerMetricsLeavesNoTrace(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp, "--no-server-metrics");
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.err().contains("server metrics"), run::toString);
        assertFalse(run.out().contains("Server ("), run::toString);
        assertFalse(Files.exists(tmp.resolve(BASE + ServerMetricsCsvWriter.SUFFIX)));
        assertFalse(summary(tmp).has("server"));
    }

    /**
     * A metrics URL on another origin than the API (a second server on 127.0.0.1, its own port) that wants a token:
     * the run's key and --header stay with the API, so the scrape is refused and one warning line says it needs
     * credentials; given with --server-metrics-header, it is scraped. No secret reaches the console or a file.
     */
    @Test
    void anotherOriginsMetricsGetOnlyTheScrapesOwnHeaders(@TempDir Path tmp) throws IOException {
        HttpServer metrics = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        List<Map<String, String>> requests = new CopyOnWriteArrayList<>();
        metrics.createContext("/metrics", exchange -> {
            Map<String, String> got = new TreeMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> got.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
            requests.add(got);
            try (exchange) {
                if (!"Bearer metrics-secret".equals(got.get("authorization"))) {
                    exchange.sendResponseHeaders(401, -1);
                    return;
                }
                byte[] body = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0\n"
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        metrics.start();
        try {
            String url = "http://127.0.0.1:" + metrics.getAddress().getPort() + "/metrics";
            Path refusedDir = tmp.resolve("refused");
            CliRun refused = runWithKey(refusedDir, "--server-metrics", url, "--header", "X-Gateway: gw-secret");
            assertEquals(0, refused.exitCode(), refused::toString);
            List<String> warnings = refused.err().lines().filter(l -> l.contains("server metrics")).toList();
            assertEquals(1, warnings.size(), refused::toString);
            assertTrue(warnings.get(0).startsWith("llmperf4j: warning: no server metrics from " + url + " (HTTP 401: "
                    + "the scrape needs credentials and sent none, since the run's key and --header go only to the "
                    + "API's origin"), warnings.get(0));
            assertTrue(warnings.get(0).contains("--server-metrics-header"), warnings.get(0));
            assertEquals(null, requests.get(0).get("authorization"));
            assertEquals(null, requests.get(0).get("x-gateway"));
            assertFalse(Files.exists(refusedDir.resolve(BASE + ServerMetricsCsvWriter.SUFFIX)));

            Path givenDir = tmp.resolve("given");
            CliRun given = runWithKey(givenDir, "--server-metrics", url, "--server-metrics-interval", "0.1",
                    "--header", "X-Gateway: gw-secret",
                    "--server-metrics-header", "Authorization: Bearer metrics-secret");
            assertEquals(0, given.exitCode(), given::toString);
            assertFalse(given.err().contains("no server metrics"), given::toString);
            assertTrue(Files.exists(givenDir.resolve(BASE + ServerMetricsCsvWriter.SUFFIX)), given::toString);
            assertTrue(summary(givenDir).has("server"));
            Map<String, String> last = requests.get(requests.size() - 1);
            assertEquals("Bearer metrics-secret", last.get("authorization"));
            assertEquals(null, last.get("x-gateway"), "the run's --header stays with the API's origin");

            for (CliRun run : List.of(refused, given)) {
                assertNoSecret(run.out() + run.err());
            }
            try (var files = Files.walk(tmp)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    assertNoSecret(Files.readString(f, StandardCharsets.ISO_8859_1));
                }
            }
        } finally {
            metrics.stop(0);
        }
    }

    private static void assertNoSecret(String text) {
        for (String secret : List.of("sk-run-secret", "gw-secret", "metrics-secret")) {
            assertFalse(text.contains(secret), secret);
        }
    }

    private static CliRun runWithKey(Path dir, String... extra) {
        Map<String, String> env = new HashMap<>(server.env());
        env.put("OPENAI_API_KEY", "sk-run-secret");
        return CliRun.of(env, args(dir, extra));
    }

    @Test
    void badFlagsAreOneLineAndExitTwo(@TempDir Path tmp) {
        run(tmp, "--server-metrics-interval", "0").assertOneErrorLine(2, "--server-metrics-interval");
        run(tmp, "--server-metrics", "ftp://host/metrics").assertOneErrorLine(2, "--server-metrics must be");
        run(tmp, "--server-metrics", "--no-server-metrics").assertOneErrorLine(2, "contradict");
        run(tmp, "--server-metrics-header", "no colon").assertOneErrorLine(2,
                "--server-metrics-header must look like 'Name: value'");
    }

    private static CliRun run(Path dir, String... extra) {
        return CliRun.of(server.env(), args(dir, extra));
    }

    private static String[] args(Path dir, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "sim",
                "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "12",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", Integer.toString(REQUESTS),
                "--num-concurrent-requests", Integer.toString(CONCURRENCY), "--no-client-warmup",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }

    private static JsonNode summary(Path dir) throws IOException {
        return new ObjectMapper().readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile());
    }
}
