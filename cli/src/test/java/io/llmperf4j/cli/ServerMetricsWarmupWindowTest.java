package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A warmup still running when the measured window opens (6 warmup requests at concurrency 8: the window opens at the
 * first measured send, beside them), against the embedded simulator, whose vLLM-named /metrics count what it served.
 * The server's counters run from a scrape at the window's opening: they hold what the server generated inside the
 * window, the warmup's tail included, and the client's view of the same span is set beside them. QA (c1w): the
 * counters ran from the warmup's end and reported 1,140 generation tokens for the window's 1,380, 38 requests for 40,
 * the only warning blaming 0.06 s.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerMetricsWarmupWindowTest {
    private static final int CONCURRENCY = 8;
    private static final int REQUESTS = 40;
    private static final int OUTPUT = 30;
    private static final String BASE = "sim_40_30";
    /** The peaks say how many samples they rest on, taken every 0.2 s. */
    private static final java.util.regex.Pattern PEAK = java.util.regex.Pattern.compile(
            "peak of \\d+ samples? \\(?(sampled )?every 0\\.2 s\\)?: running ");

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(20))
            .interTokenDelay(Duration.ofMillis(4)));

    @Test
    void theServersCountsMatchWhatTheClientSawInTheSameSpanAndTheRestIsSaid(@TempDir Path tmp) throws IOException {
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", Integer.toString(OUTPUT),
                "--stddev-output-tokens", "0", "--max-num-completed-requests", Integer.toString(REQUESTS),
                "--num-concurrent-requests", Integer.toString(CONCURRENCY), "--warmup-requests", "6",
                "--no-client-warmup", "--server-metrics-interval", "0.2", "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = new ObjectMapper().readTree(tmp.resolve(BASE + "_llmperf4j_summary.json").toFile());
        JsonNode s = summary.get("server");
        JsonNode client = s.get("client_same_span");
        assertFalse(client.isNull(), s::toString);
        double delivered = summary.get("throughput").get("output_tokens_delivered").asDouble();
        assertTrue(delivered > REQUESTS * OUTPUT, "the warmup's tail is delivered inside the window: " + delivered);

        // the server counted from an instant inside the opening scrape's exchange, the client's span starts when
        // that answer was read, so the server has every token the client received in the span but those in transit
        // before it (a few, 3 % of the window's at most here), plus what it wrote during the exchange, which grows
        // with a busy machine's delays (ServerMetricsMidRunTest failed a try on that side at the window's end): the
        // bound is one-sided. The QA's bug was on this side: 1,140 reported of the window's 1,380, 17 % low, unsaid
        long generated = s.get("generation_tokens").asLong();
        double sameSpan = client.get("output_tokens").asDouble();
        assertTrue(generated >= sameSpan - 0.03 * delivered && generated <= 1.03 * delivered, s::toString);
        assertTrue(s.get("requests_finished").asInt() >= client.get("requests_ended").asInt() - 2, s::toString);
        assertTrue(client.get("warmup_requests_ended").asInt() > 0, "warmup requests ended after the opening: " + s);
        // the client's span and what the counters leave out add up to the window's truth, the delivered tokens
        assertEquals(delivered, sameSpan + client.get("missed_output_tokens").asDouble(), 1e-6, s::toString);

        double from = s.get("counted_from_s").asDouble();
        double to = s.get("counted_to_s").asDouble();
        assertEquals(s.get("window_s").asDouble(), to, 1e-9, "the final scrape follows the last record");
        assertEquals(generated / (to - from), s.get("generation_tokens_per_s").asDouble(), 1e-6);
        // how long the scrapes the counters run between took: the server read its counters inside each exchange
        assertTrue(s.get("opening_scrape_s").asDouble() > 0 && s.get("closing_scrape_s").asDouble() > 0, s::toString);
        assertTrue(client.get("prompt_tokens").asLong() > 0, s::toString);

        // the rest of the window is warned of with its size whenever it held any request's end or over 1 % of tokens
        boolean material = client.get("missed_requests_ended").asInt() > 0
                || client.get("missed_output_tokens").asDouble() > 0.01 * delivered;
        List<String> warned = run.err().lines().filter(l -> l.contains("the server's counters cover")).toList();
        assertEquals(material ? 1 : 0, warned.size(), run::toString);
        String line = run.out().lines().filter(l -> l.startsWith("Server (vllm /metrics")).findFirst().orElseThrow();
        assertTrue(line.contains(generated + " generation tokens"), line);
        boolean missedSome = client.get("missed_output_tokens").asDouble() > 0
                || client.get("missed_requests_ended").asInt() > 0;
        assertEquals(from > 0.005 && missedSome, line.contains("counters over "), line);
        assertTrue(PEAK.matcher(line).find(), line);

        String html = Files.readString(tmp.resolve(BASE + "_report.html"));
        assertFalse(html.contains("are among them"), "the old note claimed more than the server saw");
        assertFalse(html.contains(">0 sessions"), "no sessions in this run");
    }

    /** A sweep prints each level's Server line (QA: none was printed), and its page gives the sampled peaks. */
    @Test
    void aSweepPrintsEachLevelsServerLine(@TempDir Path tmp) throws IOException {
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "10", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "12", "--concurrency-sweep", "1,3", "--warmup-requests", "2",
                "--no-client-warmup", "--server-metrics-interval", "0.2", "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        for (String level : List.of("concurrency 1", "concurrency 3")) {
            assertEquals(1, run.out().lines().filter(l -> l.startsWith(level + ": Server (vllm /metrics")).count(),
                    run::toString);
        }
        String page = Files.readString(tmp.resolve("sim_40_10_report.html"));
        assertTrue(PEAK.matcher(page).find(), "the sweep page's per-level server note");
    }
}
