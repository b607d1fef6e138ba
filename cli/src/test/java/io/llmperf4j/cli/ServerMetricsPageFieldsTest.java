package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The page's server section shows what the summary's server block gained: how long the two scrapes the counters run
 * between took ({@code opening_scrape_s}, {@code closing_scrape_s}), the server's token counters beside the client's
 * counts over the same span and, when they differ (SERVER_TOKENS_DIFFER), that they do; a counter reset as before.
 * A run's page and a sweep's. Against the simulator's true {@code /metrics}, scaled or reset by {@link MetricsProxy}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerMetricsPageFieldsTest {
    private static final String BASE = "sim_40_20";

    private static CliRun run(SimulatedServer s, Path dir, String metricsUrl, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "24", "--num-concurrent-requests", "4", "--no-client-warmup",
                "--no-stream-usage", "--server-metrics", metricsUrl, "--server-metrics-interval", "0.1",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", s.baseUrl(), "OPENAI_API_KEY", "k"),
                args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run::toString);
        return run;
    }

    private static SimulatedServer simulator() {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(10))
                .interTokenDelay(Duration.ofMillis(2)).tokensPerChunk(2).build());
    }

    private static String origin(SimulatedServer s) {
        return s.baseUrl().substring(0, s.baseUrl().length() - "/v1".length());
    }

    @Test
    void aRunsPageShowsTheEdgeScrapesAndTheTokenCountsThatDiffer(@TempDir Path tmp) throws Exception {
        Path differ = tmp.resolve("differ");
        Path sweep = tmp.resolve("sweep");
        try (SimulatedServer s = simulator(); MetricsProxy half = MetricsProxy.scaling(origin(s), 0.5, 1)) {
            run(s, differ, half.url());
            run(s, sweep, half.url(), "--concurrency-sweep", "2,4", "--sleep-between", "0");
        }
        JsonNode server = RunFolder.summary(differ).get("server");
        assertTrue(RunFolder.warning(RunFolder.summary(differ), "SERVER_TOKENS_DIFFER") != null, server::toString);
        String page = Files.readString(differ.resolve(BASE + "_report.html"));
        assertTrue(page.contains(edges(server)), page);
        JsonNode client = server.get("client_same_span");
        assertTrue(page.contains("Server and client over the counters' span: output tokens "
                + server.get("generation_tokens").asLong() + " by its generation counter, "
                + String.format(Locale.ROOT, "%.0f", client.get("output_tokens").asDouble())
                + " received by the client in " + client.get("content_events").asInt() + " content events"), page);
        assertTrue(page.contains("<strong class=\"server-tokens-differ\">They differ beyond what the scrapes' "
                + "exchanges allow (SERVER_TOKENS_DIFFER)"), page);

        String sweepPage = Files.readString(sweep.resolve(BASE + "_report.html"));
        for (JsonNode level : RunFolder.sweep(sweep).get("levels")) {
            JsonNode summary = RunFolder.summary(sweep.resolve(level.get("results_dir").asText()));
            assertTrue(sweepPage.contains(edges(summary.get("server"))), sweepPage);
        }
        assertTrue(sweepPage.contains("its token counters and the client's counts differ (SERVER_TOKENS_DIFFER)"),
                sweepPage);
    }

    @Test
    void countersThatAgreeSayTheCountsWithoutADifferenceAndAResetIsShown(@TempDir Path tmp) throws Exception {
        Path agree = tmp.resolve("agree");
        Path reset = tmp.resolve("reset");
        try (SimulatedServer s = simulator(); MetricsProxy same = MetricsProxy.scaling(origin(s), 1, 1);
             MetricsProxy resetting = MetricsProxy.resetting(origin(s), 10)) {
            run(s, agree, same.url());
            run(s, reset, resetting.url());
        }
        String page = Files.readString(agree.resolve(BASE + "_report.html"));
        assertTrue(page.contains("Server and client over the counters' span: output tokens "), page);
        assertFalse(page.contains("server-tokens-differ"), page);
        assertTrue(RunFolder.summary(reset).get("server").get("counters_reset").asBoolean(), "reset");
        String resetPage = Files.readString(reset.resolve(BASE + "_report.html"));
        assertTrue(resetPage.contains("a counter went back (a restart or reset): its counts are a lower bound"),
                resetPage);
    }

    /** The page's words for the summary's edge scrapes, as the page escapes them. */
    private static String edges(JsonNode server) throws IOException {
        assertTrue(server.hasNonNull("opening_scrape_s") && server.hasNonNull("closing_scrape_s"), server::toString);
        return String.format(Locale.ROOT, "the scrapes its counters run between took %.1f ms (opening) and %.1f ms "
                        + "(closing): it read its counters at some instant inside each",
                server.get("opening_scrape_s").asDouble() * 1000, server.get("closing_scrape_s").asDouble() * 1000);
    }
}
