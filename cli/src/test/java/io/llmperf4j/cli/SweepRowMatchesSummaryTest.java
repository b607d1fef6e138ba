package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One metric view: a sweep level's row in {@code <base>_sweep.json} (the engine's {@code LevelSummary}) and the same
 * level's {@code _llmperf4j_summary.json} (the report's {@code RunMetrics}) use one percentile definition and one
 * output-token policy, so they agree to the last digit; so does the level's SLO verdict's point estimate (the
 * capacity search's {@code LevelJudge}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepRowMatchesSummaryTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void everySweepRowEqualsItsLevelsSummaryExactly(@TempDir Path tmp) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(3)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "6", "--stddev-output-tokens", "0", "--max-num-completed-requests", "9",
                    "--concurrency-sweep", "1,3", "--sleep-between", "0", "--slo", "ttft_p90<=20s,e2e_p50<=20s",
                    "--results-dir", tmp.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        JsonNode levels = JSON.readTree(tmp.resolve("m_40_6_sweep.json").toFile()).get("levels");
        assertEquals(2, levels.size());
        for (JsonNode row : levels) {
            JsonNode summary = JSON.readTree(tmp.resolve(row.get("results_dir").asText())
                    .resolve("m_40_6_llmperf4j_summary.json").toFile());
            assertEquals(9, row.get("successes").asInt());
            assertTrue(row.get("ttft_p50_ms").isNumber(), row::toString);
            String level = "level " + row.get("level").asText();
            // the same JSON number text on both sides: bit-for-bit the same double
            assertEquals(summary.at("/metrics/ttft_ms/p50"), row.get("ttft_p50_ms"), level);
            assertEquals(summary.at("/metrics/ttft_ms/p90"), row.get("ttft_p90_ms"), level);
            assertEquals(summary.at("/metrics/e2e_latency_ms/p50"), row.get("e2e_p50_ms"), level);
            assertEquals(summary.at("/metrics/e2e_latency_ms/p90"), row.get("e2e_p90_ms"), level);
            assertEquals(summary.at("/throughput/output_tokens_per_s"), row.get("output_tok_s"), level);
            assertEquals(summary.at("/throughput/requests_per_s"), row.get("requests_s"), level);
            // the level's SLO verdict quotes the same figures (one definition), not a neighbouring rank
            assertEquals("ttft_p90<=20000ms", summary.at("/slo/objectives/0/objective").asText(), level);
            assertEquals(row.get("ttft_p90_ms"), summary.at("/slo/objectives/0/estimate"), level);
            assertEquals(row.get("e2e_p50_ms"), summary.at("/slo/objectives/1/estimate"), level);
        }
    }
}
