package io.llmperf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run its timeout cuts short, against the embedded simulator: llmperf's output throughput counts the successful
 * requests' tokens alone, {@code output_tokens_per_s_delivered} every token that arrived inside the window (the
 * cancelled requests' too), and the page sets it beside the server's counter; each server percentile carries its
 * histogram bucket.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeliveredThroughputCommandTest {
    private static final String BASE = "sim_40_40";

    /** A request takes about 5 + 40 × 20 ms: slot 0's warmup request streams on after the window opened. */
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(20)));

    /**
     * The timeout cuts requests that stream no more: the server answers the pre-run check and the first wave (about
     * 5 + 40 × 2 ms each) whole, then stalls every later answer halfway (its 20th of 40 tokens) for longer than the
     * run. Which requests finish and which are cut is the server's doing, not a race with the timeout (a first wave
     * of 0.8 s against a 1 s timeout was all cut at load 20, and the run failed).
     */
    @Test
    void theDeliveredFigureCountsTheCancelledRequestsTokensAndThePageSaysWhy(@TempDir Path dir) throws IOException {
        List<FaultKind> faults = new ArrayList<>(Collections.nCopies(4, FaultKind.NONE));
        faults.addAll(Collections.nCopies(60, FaultKind.STALL));
        CliRun run;
        try (SimulatedServer stalling = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(2))
                .faultPlan(FaultPlan.sequence(faults).withStallDuration(Duration.ofSeconds(60))).build())) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", stalling.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "sim", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "40", "--stddev-output-tokens", "0", "--max-num-completed-requests",
                    "30", "--num-concurrent-requests", "3", "--timeout", "2", "--no-client-warmup",
                    "--server-metrics-interval", "0.1", "--results-dir", dir.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);

        ObjectMapper json = new ObjectMapper();
        JsonNode summary = json.readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile());
        long successTokens = 0;
        long cancelledTokens = 0;
        int cancelled = 0;
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) {
            JsonNode r = json.readTree(line);
            if (r.get("failure").isNull()) {
                successTokens += r.get("usage_completion_tokens").asLong();
            } else {
                assertEquals("CANCELLED", r.get("failure").get("kind").asText(), line);
                cancelled++;
                cancelledTokens += r.get("output_tokens").asLong() - 1; // the client's count less its BOS
            }
        }
        // the stalled answers: each cut after its first 20 tokens (the client's count less its BOS)
        assertTrue(cancelled > 0 && cancelledTokens == 20L * cancelled, "the timeout cut requests that had received "
                + "content: " + cancelled + " cancelled, " + cancelledTokens + " tokens");

        JsonNode t = summary.get("throughput");
        double seconds = summary.get("run").get("duration_s").asDouble();
        assertEquals(successTokens, t.get("total_output_tokens").asLong());
        assertEquals(successTokens / seconds, t.get("output_tokens_per_s").asDouble(), 1e-9, "llmperf's, unchanged");
        assertEquals(successTokens + cancelledTokens, t.get("output_tokens_delivered").asDouble(), 1e-9);
        assertEquals(cancelledTokens, t.get("output_tokens_delivered_by_failed").asDouble(), 1e-9);
        assertEquals((successTokens + cancelledTokens) / seconds, t.get("output_tokens_per_s_delivered").asDouble(),
                1e-9);

        String page = Files.readString(dir.resolve(BASE + "_report.html"));
        assertTrue(page.contains(String.format(Locale.ROOT, "<strong class=\"delivered\">%.1f</strong> tok/s (%d "
                        + "tokens, %d of them from requests cancelled or failed after their content began)",
                (successTokens + cancelledTokens) / seconds, successTokens + cancelledTokens, cancelledTokens)), page);
        assertTrue(page.contains("llmperf's counts the successful requests' tokens alone over the same window"));
        assertTrue(page.contains(cancelled + " were cancelled in flight when the run ended: they say nothing about "
                + "whether the service held this load."), page);

        // every server percentile carries the bucket it was interpolated in; a server value above the client's is
        // marked, never read as a negative network time
        Matcher cells = Pattern.compile("<td class=\"num server( above-client)?\">([^<]*)(<span class=\"bucket\">"
                + "\\(bucket ([0-9.]+)\u2013([0-9.]+) ms\\)</span>)?</td>").matcher(page);
        int seen = 0;
        while (cells.find()) {
            if (cells.group(2).equals("-")) continue;
            seen++;
            assertTrue(cells.group(3) != null, "no bucket: " + cells.group());
            // "≤ 3.85": Markov's cap, an upper bound; the value itself still lies in its bucket
            double value = Double.parseDouble(cells.group(2).replace(" \u2191", "").replace("\u2264 ", "").trim());
            assertTrue(value >= 0 && value <= Double.parseDouble(cells.group(5)), cells.group());
        }
        assertTrue(seen >= 6, "TTFT and E2E at three percentiles at least: " + seen);
        assertTrue(page.contains("The true value lies anywhere in the bucket shown beside each."));
        assertTrue(!page.contains("The client's minus the server's is network"), "the old claim is gone");
        assertTrue(List.of("p50_bucket", "p90_bucket", "p99_bucket").stream()
                .allMatch(k -> summary.get("server").get("ttft").get(k).has("lower_s")));
    }

    /**
     * --warmup-requests 1 at concurrency 3: the window opens as slot 1 sends its first measured request, while slot
     * 0's warmup request streams on (about 0.8 s): its 40 tokens, all arriving after the window opened, count in the
     * delivered figure, and in no other.
     */
    @Test
    void theWarmupsTokensDeliveredInsideTheWindowCountInTheDeliveredFigure(@TempDir Path dir) throws IOException {
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "40", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "6", "--num-concurrent-requests", "3", "--warmup-requests", "1",
                "--no-client-warmup", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("(1 warmup request ran)"), run::toString);

        ObjectMapper json = new ObjectMapper();
        JsonNode summary = json.readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile());
        double seconds = summary.get("run").get("duration_s").asDouble();
        // start_time is whole milliseconds, and a record's wall-clock start is read apart from the run's: the
        // window's edges widened by 2 ms, as DeliveredTokens widens them
        long windowStart = Instant.parse(summary.get("run").get("start_time").asText()).toEpochMilli()
                * 1_000_000L - 2_000_000L;
        long windowEnd = windowStart + 4_000_000L + Math.round(seconds * 1e9);
        // the measured requests' tokens inside the window, from their records (requests.jsonl)
        long measuredTokens = 0;
        double measuredInside = 0;
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) {
            JsonNode r = json.readTree(line);
            assertTrue(r.get("failure").isNull(), line);
            long n = r.get("usage_completion_tokens").asLong();
            measuredTokens += n;
            long send = r.get("start_epoch_micros").asLong() * 1_000L;
            JsonNode events = r.get("content_event_nanos");
            for (JsonNode e : events) {
                long at = send + e.asLong();
                if (at >= windowStart && at <= windowEnd) measuredInside += (double) n / events.size();
            }
        }
        assertEquals(measuredTokens, measuredInside, 1e-9, "every measured token arrived inside the window");

        JsonNode t = summary.get("throughput");
        assertEquals(measuredTokens, t.get("total_output_tokens").asLong(), "the warmup is in no other figure");
        assertEquals(measuredTokens / seconds, t.get("output_tokens_per_s").asDouble(), 1e-9);
        // the warmup request's 40 tokens (its max_tokens, which the simulator honours) all arrived in the window
        assertEquals(measuredInside + 40, t.get("output_tokens_delivered").asDouble(), 1e-9);
        assertEquals(0, t.get("output_tokens_delivered_by_failed").asDouble(), 1e-9);
        assertEquals((measuredInside + 40) / seconds, t.get("output_tokens_per_s_delivered").asDouble(), 1e-9);
    }
}
