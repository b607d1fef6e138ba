package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** token-benchmark --llm-api embeddings under the token benchmark's load models: open loop, sweeps, warmup. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EmbeddingsLoadTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b);

    private static CliRun run(Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "sim", "--llm-api", "embeddings",
                "--mean-input-tokens", "50", "--stddev-input-tokens", "10", "--embedding-batch-size", "2",
                "--max-num-completed-requests", "6", "--num-concurrent-requests", "2", "--timeout", "60",
                "--results-dir", out.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(server.env(),
                args.toArray(String[]::new));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = "|", value = {"constant|", "poisson|", "gamma|--burstiness=0.5"})
    void openLoopArrivals(String arrival, String burstiness, @TempDir Path tmp) throws IOException {
        List<String> flags = new ArrayList<>(List.of("--request-rate", "40", "--arrival", arrival));
        if (burstiness != null) flags.add(burstiness);
        CliRun run = run(tmp, flags.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Open loop: offered 40 req/s, " + arrival), run::toString);
        assertTrue(run.out().contains("Requests: 6 (6 completed, 0 errors), 2 inputs per request"), run::toString);
        JsonNode summary = JSON.readTree(tmp.resolve("sim_50_150_embeddings_summary.json").toFile());
        assertEquals(6, summary.get("num_completed_requests").asInt());
        assertTrue(summary.get("load").asText().contains(arrival), summary::toString);
        assertTrue(summary.get("inputs_per_s").asDouble() > 0);
        assertTrue(summary.get("input_tokens_per_s").asDouble() > 0);
        assertEquals(6, csvRows(tmp.resolve("sim_50_150_embeddings.csv")).size());
        assertTrue(Files.exists(tmp.resolve("sim_50_150_open_loop.json")), "the open loop's schedule file");
        assertFalse(Files.exists(tmp.resolve("sim_50_150_summary.json")), "llmperf's files are for LLM APIs only");
    }

    @Test
    void concurrencySweepHasASummaryPerLevelAndATable(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp, "--concurrency-sweep", "1,3", "--sleep-between", "0");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Embeddings sweep of sim: concurrency sweep 1,3"), run::toString);
        assertTrue(run.out().contains("saturation point:"), run::toString);
        assertTrue(run.out().contains("failures: none"), run::toString);
        for (int concurrency : new int[] {1, 3}) {
            Path level = tmp.resolve("concurrency_" + concurrency);
            JsonNode summary = JSON.readTree(level.resolve("sim_50_150_embeddings_summary.json").toFile());
            assertEquals(concurrency, summary.get("num_concurrent_requests").asInt());
            assertEquals(6, summary.get("num_completed_requests").asInt());
            assertEquals(6, csvRows(level.resolve("sim_50_150_embeddings.csv")).size());
        }
        List<CSVRecord> rows = csvRows(tmp.resolve("sim_50_150_embeddings_sweep.csv"));
        assertEquals(2, rows.size());
        assertEquals("1", rows.get(0).get("level"));
        assertEquals("3", rows.get(1).get("level"));
        assertEquals("concurrency_3", rows.get(1).get("folder"));
        for (CSVRecord row : rows) {
            assertEquals("6", row.get("completed"), row::toString);
            assertTrue(Double.parseDouble(row.get("input_tokens_per_s")) > 0, row::toString);
        }
    }

    @Test
    void warmupRequestsAreLeftOut(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp, "--warmup-requests", "2");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = JSON.readTree(tmp.resolve("sim_50_150_embeddings_summary.json").toFile());
        assertEquals(6, summary.get("num_requests").asInt());
        assertTrue(summary.get("load").asText().contains("warmup 2 requests"), summary::toString);
    }

    @Test
    void iterationsAndSeveralModelsAreRefused(@TempDir Path tmp) {
        run(tmp, "--iterations", "1").assertOneErrorLine(2, "--iterations is not available with --llm-api embeddings");
        List<String> args = List.of("token-benchmark", "--model", "a,b", "--llm-api", "embeddings");
        CliRun.of(server.env(), args.toArray(String[]::new))
                .assertOneErrorLine(2, "one --model at a time");
    }

    private static List<CSVRecord> csvRows(Path csv) throws IOException {
        try (Reader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8);
             CSVParser parser = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build()
                     .parse(reader)) {
            return parser.getRecords();
        }
    }
}
