package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep's files carry each level's server-side figures: {@code levels[].server} in {@code <base>_sweep.json} is the
 * level's own summary's {@code server} block, and the CSV's {@code server_*} columns are read from it, so a notebook
 * comparing levels need not open every level's summary. Against the simulator's vLLM-style {@code /metrics}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepServerFiguresTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void eachLevelsServerFiguresAreItsSummarysServerBlock(@TempDir Path tmp) throws IOException {
        CliRun run = sweep(tmp, "--server-metrics-interval", "0.1");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode levels = JSON.readTree(tmp.resolve("m_40_6_sweep.json").toFile()).get("levels");
        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(tmp.resolve("m_40_6_sweep.csv"));
        assertEquals(2, levels.size());
        assertEquals(2, rows.size());
        for (int i = 0; i < 2; i++) {
            JsonNode row = levels.get(i);
            String level = "level " + row.get("level").asText();
            JsonNode own = JSON.readTree(tmp.resolve(row.get("results_dir").asText())
                    .resolve("m_40_6_llmperf4j_summary.json").toFile()).get("server");
            assertEquals("vllm", own.get("engine").asText(), own::toString);
            assertEquals(own, row.get("server"), level); // the whole block, to the last digit
            assertEquals(9, row.at("/server/requests_finished").asInt(), level);

            CSVRecord csv = rows.get(i);
            assertEquals(own.get("generation_tokens_per_s").asDouble(),
                    Double.parseDouble(csv.get("server_generation_tok_s")), 0.0, level);
            assertTrue(own.at("/ttft/p50_s").isNumber(), own::toString);
            assertEquals(own.at("/ttft/p50_s").asDouble() * 1000, Double.parseDouble(csv.get("server_ttft_p50_ms")),
                    0.0, level);
            assertEquals(cell(own.get("peak_requests_running")), csv.get("server_peak_running"), level);
            assertEquals(cell(own.get("peak_requests_waiting")), csv.get("server_peak_waiting"), level);
            assertEquals(cell(own.get("prefix_cache_hit_rate")), csv.get("server_prefix_cache_hit_rate"), level);
            // scraped before the first send and after the last end: the counters cover the whole window
            assertEquals(0.0, own.get("counted_from_s").asDouble(), own::toString);
            assertEquals("true", csv.get("server_counters_whole_window"), level);
            // the JSON's counters_reset, in the column appended last (earlier columns keep their places)
            assertEquals(String.valueOf(own.get("counters_reset").asBoolean()), csv.get("server_counters_reset"),
                    level);
            assertEquals("false", csv.get("server_counters_reset"), level);
        }
        List<String> header = List.copyOf(rows.get(0).getParser().getHeaderNames());
        assertEquals("server_counters_whole_window", header.get(header.size() - 2), header::toString);
        assertEquals("server_counters_reset", header.get(header.size() - 1), header::toString);
    }

    @Test
    void withoutScrapingTheServerIsNullAndItsCellsEmpty(@TempDir Path tmp) throws IOException {
        CliRun run = sweep(tmp, "--no-server-metrics");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode levels = JSON.readTree(tmp.resolve("m_40_6_sweep.json").toFile()).get("levels");
        for (JsonNode row : levels) {
            assertTrue(row.has("server") && row.get("server").isNull(), row::toString);
        }
        for (CSVRecord csv : TokenBenchmarkCommandTest.csvRows(tmp.resolve("m_40_6_sweep.csv"))) {
            for (String column : List.of("server_generation_tok_s", "server_ttft_p50_ms", "server_peak_running",
                    "server_peak_waiting", "server_prefix_cache_hit_rate", "server_counters_whole_window",
                    "server_counters_reset")) {
                assertEquals("", csv.get(column), column);
            }
        }
    }

    private static CliRun sweep(Path dir, String... extra) {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(3)).interTokenDelay(Duration.ofMillis(1)).build())) {
            List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "m",
                    "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "6",
                    "--stddev-output-tokens", "0", "--max-num-completed-requests", "9", "--concurrency-sweep", "1,3",
                    "--sleep-between", "0", "--results-dir", dir.toString()));
            args.addAll(List.of(extra));
            return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    args.toArray(String[]::new));
        }
    }

    /** A JSON number as the CSV writes it (plain decimal, no trailing zeros); null as an empty cell. */
    private static String cell(JsonNode n) {
        if (n == null || n.isNull()) return "";
        return new java.math.BigDecimal(Double.toString(n.asDouble())).stripTrailingZeros().toPlainString();
    }
}
