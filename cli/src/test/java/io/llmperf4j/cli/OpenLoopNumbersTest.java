package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An open loop's own figures against the summary's, over real sockets against the embedded simulator: its latencies
 * from the actual send are the summary's to the last digit (one percentile definition, not HdrHistogram's nearest
 * rank), from the intended send they are never below them, and goodput judges TTFT and E2E from the intended send.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OpenLoopNumbersTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final List<String> PERCENTILES = List.of("p50", "p90", "p99", "p999", "max");
    private static final long TTFT_BOUND_NANOS = 30_000_000L;
    private static final long E2E_BOUND_NANOS = 200_000_000L;

    /** QA's simulator: 20 ms to the first token, 5 ms per token, 4 sequences at once. */
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(20))
            .interTokenDelay(Duration.ofMillis(5)).maxConcurrentSequences(4));

    /**
     * 2 in flight of ~65 ms each carry ~30 req/s; 200 req/s are offered, so most arrivals wait behind the cap: their
     * TTFT from the intended send is far above the one from the actual send.
     */
    @Test
    void openLoopFiguresMatchTheSummaryAndGoodputCountsFromTheIntendedSend(@TempDir Path tmp) throws IOException {
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "10", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "20", "--request-rate", "200", "--arrival", "constant",
                "--max-concurrency", "2", "--slo", "ttft:30ms,e2e:200ms", "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode open = JSON.readTree(tmp.resolve("m_40_10_open_loop.json").toFile());
        JsonNode summary = JSON.readTree(tmp.resolve("m_40_10_llmperf4j_summary.json").toFile());
        assertTrue(open.get("max_backlog").asInt() > 0, "the cap binds: " + open);

        // from the actual send: the summary's figures exactly
        for (String[] pair : new String[][] {{"ttft_from_actual_ms", "ttft_ms"}, {"e2e_from_actual_ms", "e2e_latency_ms"}}) {
            JsonNode actual = open.get(pair[0]);
            JsonNode table = summary.at("/metrics/" + pair[1]);
            assertEquals(table.get("count").asLong(), actual.get("count").asLong(), pair[0]);
            assertEquals(table.get("p50").asDouble(), actual.get("p50").asDouble(), 0.0, pair[0] + " p50");
            assertEquals(table.get("p90").asDouble(), actual.get("p90").asDouble(), 0.0, pair[0] + " p90");
            assertEquals(table.get("p99").asDouble(), actual.get("p99").asDouble(), 0.0, pair[0] + " p99");
            assertEquals(table.get("p99_9").asDouble(), actual.get("p999").asDouble(), 0.0, pair[0] + " p99.9");
            assertEquals(table.get("max").asDouble(), actual.get("max").asDouble(), 0.0, pair[0] + " max");
        }
        // from the intended send: never below, at every percentile
        for (String metric : List.of("ttft", "e2e")) {
            JsonNode intended = open.get(metric + "_from_intended_ms");
            JsonNode actual = open.get(metric + "_from_actual_ms");
            for (String p : PERCENTILES) {
                assertTrue(intended.get(p).asDouble() >= actual.get(p).asDouble(),
                        metric + " " + p + ": intended " + intended + " vs actual " + actual);
            }
        }
        // the console's block prints the same figures as the table
        assertTrue(run.out().contains(String.format(java.util.Locale.ROOT, "%.3f %10.3f",
                open.at("/ttft_from_actual_ms/p50").asDouble(), open.at("/ttft_from_actual_ms/p90").asDouble())),
                run::toString);

        // goodput: recomputed request by request from the journal, TTFT and E2E from the intended send
        List<String> journal = Files.readAllLines(tmp.resolve("requests.jsonl"));
        assertEquals(20, journal.size());
        int goodFromIntended = 0;
        int goodFromActual = 0;
        for (String line : journal) {
            JsonNode r = JSON.readTree(line);
            if (!r.path("failure").isNull() && !r.path("failure").isMissingNode()) continue;
            long lag = r.get("send_lag_nanos").asLong();
            long ttft = r.get("ttft_nanos").asLong();
            long e2e = r.get("e2e_nanos").asLong();
            assertTrue(lag >= 0 && ttft >= 0, line);
            if (lag + ttft <= TTFT_BOUND_NANOS && lag + e2e <= E2E_BOUND_NANOS) goodFromIntended++;
            if (ttft <= TTFT_BOUND_NANOS && e2e <= E2E_BOUND_NANOS) goodFromActual++;
        }
        JsonNode goodput = summary.get("goodput");
        assertEquals(goodFromIntended, goodput.get("good_requests").asInt(), goodput::toString);
        assertTrue(goodFromIntended < goodFromActual, "the queueing must matter for the test to mean anything: "
                + goodFromIntended + " vs " + goodFromActual);
        assertTrue(run.out().contains("Goodput (TTFT <= 30 ms, E2E <= 200 ms, from the intended send): "),
                run::toString);
        assertTrue(run.out().contains(", " + goodFromIntended + " of 20 requests good ("), run::toString);
        String page = Files.readString(tmp.resolve("m_40_10_report.html"));
        assertTrue(page.contains("from the intended send): <strong>"), "the page says it too");
    }
}
