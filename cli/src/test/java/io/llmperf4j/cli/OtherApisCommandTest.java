package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.server.FaultCounts;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** token-benchmark with --llm-api openai-completions, anthropic, embeddings and --no-stream, over sockets. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OtherApisCommandTest {
    private static final String API_KEY = "sk-test-other-apis-9c1";
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    // the key, so each API's authentication header is checked
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(1)).apiKey(API_KEY));

    private static Map<String, String> env(String api) {
        return api.equals("anthropic")
                ? Map.of("ANTHROPIC_API_BASE", server.baseUrl(), "ANTHROPIC_API_KEY", API_KEY)
                : Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", API_KEY);
    }

    private static CliRun run(String api, Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "sim", "--llm-api", api,
                "--mean-input-tokens", "60", "--stddev-input-tokens", "10",
                "--mean-output-tokens", "12", "--stddev-output-tokens", "2",
                "--max-num-completed-requests", "6", "--num-concurrent-requests", "3", "--timeout", "60",
                "--results-dir", out.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(env(api), args.toArray(String[]::new));
    }

    @ParameterizedTest
    @CsvSource({"openai-completions,,cmpl-", "openai-completions,--no-stream,cmpl-", "openai,--no-stream,chatcmpl-",
            "anthropic,,msg_", "anthropic,--no-stream,msg_"})
    void generationApisGiveTheSameFiles(String api, String flag, String idPrefix, @TempDir Path tmp)
            throws IOException {
        CliRun run = flag == null ? run(api, tmp) : run(api, tmp, flag);
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Number Of Errored Requests: 0\n"), run::toString);
        assertTrue(run.out().contains("queried with the " + api + " api."), run::toString);
        JsonNode individual = JSON.readTree(tmp.resolve("sim_60_12_individual_responses.json").toFile());
        assertEquals(6, individual.size());
        for (JsonNode request : individual) {
            assertTrue(request.get("error_code").isNull(), request::toString);
            assertTrue(request.get("ttft_s").asDouble() > 0, request::toString);
            if (flag != null) {
                assertEquals(request.get("ttft_s").asDouble(), request.get("end_to_end_latency_s").asDouble(),
                        1e-9, "no stream: TTFT = E2E");
            }
        }
        for (CSVRecord row : csvRows(tmp.resolve("sim_60_12_requests.csv"))) {
            assertEquals(row.get("max_tokens"), row.get("output_tokens_server"), row::toString);
            assertTrue(row.get("server_response_id").startsWith(idPrefix), row::toString);
        }
        JsonNode metrics = JSON.readTree(tmp.resolve("sim_60_12_llmperf4j_summary.json").toFile()).get("metrics");
        if (flag != null) {
            // no stream: no TPOT, as no ITL (missing alike, never 0)
            assertEquals(metrics.get("itl_ms"), metrics.get("tpot_ms"), metrics::toString);
            assertTrue(run.out().lines().anyMatch(l -> l.matches("TPOT \\(per request\\)\\s+0\\s+-.*")), run::toString);
            assertFalse(run.out().contains("MULTI_TOKEN_CHUNKS"), "one event a response: no gap to misread " + run);
        } else {
            // every streamed request with a decode phase the client saw: its end after its first content (on a
            // loaded machine a whole response can land in one read, and then shows no pace: no TPOT, as designed)
            int paced = 0;
            for (JsonNode request : individual) {
                if (request.get("end_to_end_latency_s").asDouble() > request.get("ttft_s").asDouble()) paced++;
            }
            assertTrue(paced >= 1, individual::toString);
            assertEquals(paced, metrics.get("tpot_ms").get("count").asInt(), metrics::toString);
        }
    }

    @ParameterizedTest
    @CsvSource({"anthropic,malformed_event", "anthropic,error_event", "openai-completions,malformed_event",
            "openai-completions,drop_mid_stream"})
    void faultyStreamsAreErrorsNotCrashes(String api, String fault, @TempDir Path tmp) throws IOException {
        CliRun run = run(api, tmp, "--header", "X-Sim-Fault: " + fault);
        assertEquals(4, run.exitCode(), "every request failed: " + run);
        assertTrue(run.out().contains("Number Of Errored Requests: 6\n"), run::toString);
        JsonNode summary = JSON.readTree(tmp.resolve("sim_60_12_summary.json").toFile());
        assertEquals(6, summary.get("results_number_errors").asInt());
    }

    /** A stream that ends cleanly after its finish reason without message_stop or [DONE]: llmperf's success. */
    @ParameterizedTest
    @CsvSource({"anthropic", "openai-completions"})
    void aCleanEndWithoutTheEndMarkerSucceedsWithAWarning(String api, @TempDir Path tmp) throws IOException {
        CliRun run = run(api, tmp, "--header", "X-Sim-Fault: missing_done");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Number Of Errored Requests: 0\n"), run::toString);
        assertTrue(run.out().contains("[END_MARKER_MISSING] 6 of 6 successful streams ended without data: [DONE] "
                + "(Anthropic: event: message_stop)"), run::toString);
    }

    @ParameterizedTest
    @CsvSource({"openai,malformed_event,MALFORMED_EVENT", "anthropic,malformed_event,MALFORMED_EVENT",
            "anthropic,error_event,ERROR_IN_STREAM", "openai-completions,malformed_event,MALFORMED_EVENT"})
    void noStreamBadBodyIsAnError(String api, String fault, String kind, @TempDir Path tmp) throws IOException {
        CliRun run = run(api, tmp, "--no-stream", "--header", "X-Sim-Fault: " + fault);
        assertEquals(4, run.exitCode(), "every request failed: " + run);
        assertTrue(run.out().contains("Number Of Errored Requests: 6\n"), run::toString);
        for (CSVRecord row : csvRows(tmp.resolve("sim_60_12_requests.csv"))) {
            assertEquals(kind, row.get("error_kind"), row::toString);
        }
    }

    @Test
    void embeddingsWriteTheirOwnSummaryAndCsv(@TempDir Path tmp) throws IOException {
        CliRun run = run("embeddings", tmp, "--embedding-batch-size", "3");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Embeddings results"), run::toString);
        assertTrue(run.out().contains("Requests: 6 (6 completed, 0 errors), 3 inputs per request"), run::toString);
        JsonNode summary = JSON.readTree(tmp.resolve("sim_60_12_embeddings_summary.json").toFile());
        assertEquals(6, summary.get("num_completed_requests").asInt());
        assertEquals(0, summary.get("num_errors").asInt());
        assertEquals(3, summary.get("embedding_batch_size").asInt());
        assertTrue(summary.get("latency_s_p50").asDouble() > 0);
        assertTrue(summary.get("latency_s_p99").asDouble() >= summary.get("latency_s_p50").asDouble());
        assertTrue(summary.get("inputs_per_s").asDouble() > 0);
        assertTrue(summary.get("input_tokens_per_s").asDouble() > 0);
        assertEquals("usage", summary.get("input_tokens_source").asText());
        List<CSVRecord> rows = csvRows(tmp.resolve("sim_60_12_embeddings.csv"));
        assertEquals(6, rows.size());
        for (CSVRecord row : rows) {
            assertTrue(Integer.parseInt(row.get("usage_prompt_tokens")) > 0, row::toString);
            assertEquals("", row.get("error_kind"));
        }
        assertFalse(Files.exists(tmp.resolve("sim_60_12_summary.json")), "llmperf's files are for LLM APIs only");
    }

    /** With --input-lengths the inputs are what is sent: the file names and the summary say that, as a chat run's. */
    @Test
    void embeddingsNameTheirFilesAfterTheLengthsSent(@TempDir Path tmp) throws IOException {
        // --input-lengths in place of llmperf's mean and stddev flags (both together are refused)
        CliRun run = CliRun.of(env("embeddings"), "token-benchmark", "--model", "sim", "--llm-api", "embeddings",
                "--input-lengths", "fixed:40", "--output-lengths", "fixed:8", "--max-num-completed-requests", "6",
                "--num-concurrent-requests", "3", "--timeout", "60", "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = JSON.readTree(tmp.resolve("sim_40_8_embeddings_summary.json").toFile());
        assertEquals(40, summary.get("mean_input_tokens").asInt(), summary::toString);
        assertEquals(0, summary.get("stddev_input_tokens").asInt(), summary::toString);
        assertTrue(Files.exists(tmp.resolve("sim_40_8_embeddings.csv")));
    }

    @ParameterizedTest
    @CsvSource({"malformed_event,MALFORMED_EVENT", "error_event,ERROR_IN_STREAM", "drop_mid_stream,CONNECTION_CLOSED"})
    void embeddingsFaultsAreErrorsNotCrashes(String fault, String kind, @TempDir Path tmp) throws IOException {
        CliRun run = run("embeddings", tmp, "--header", "X-Sim-Fault: " + fault);
        // every request failed: exit 4, as token-benchmark's, with every file written
        assertEquals(4, run.exitCode(), run::toString);
        assertTrue(run.err().contains("every request failed (6 of 6)"), run::toString);
        assertTrue(run.out().contains("Requests: 6 (0 completed, 6 errors)"), run::toString);
        JsonNode summary = JSON.readTree(tmp.resolve("sim_60_12_embeddings_summary.json").toFile());
        assertEquals(6, summary.get("errors_by_kind").get(kind).asInt(), summary::toString);
        for (CSVRecord row : csvRows(tmp.resolve("sim_60_12_embeddings.csv"))) {
            assertEquals(kind, row.get("error_kind"), row::toString);
        }
    }

    /** What {@code serve --fault-rate 0.4} builds: the plan picks faults for embeddings too, each counted once. */
    @Test
    void embeddingsFaultsFromTheFaultPlanAreCountedAsTheServerInjectedThem(@TempDir Path tmp) throws IOException {
        try (SimulatedServer faulty = SimulatedServer.start(SimulatorConfig.builder()
                .faultPlan(FaultPlan.random(0.4, 7).withStallDuration(Duration.ofMillis(50))).build())) {
            List<String> args = List.of("token-benchmark", "--model", "sim", "--llm-api", "embeddings",
                    "--mean-input-tokens", "60", "--max-num-completed-requests", "30", "--num-concurrent-requests",
                    "3", "--timeout", "60", "--results-dir", tmp.toString());
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", faulty.baseUrl(), "OPENAI_API_KEY", "k"),
                    args.toArray(String[]::new));
            assertEquals(0, run.exitCode(), run::toString);
            FaultCounts counts = faulty.faultCounts();
            // a stall is only slow, and oversized_event changes nothing for embeddings: neither is an error
            long errorsInjected = counts.injected() - counts.count(FaultKind.STALL);
            assertTrue(errorsInjected > 3 && errorsInjected < 27, counts::toString);
            JsonNode summary = JSON.readTree(tmp.resolve("sim_60_150_embeddings_summary.json").toFile());
            assertEquals(errorsInjected, summary.get("num_errors").asLong(), summary + " vs " + counts);
            long rows = csvRows(tmp.resolve("sim_60_150_embeddings.csv")).stream()
                    .filter(r -> !r.get("error_kind").isEmpty()).count();
            assertEquals(errorsInjected, rows);
        }
    }

    @Test
    void embeddingsErrorsAreCounted(@TempDir Path tmp) throws IOException {
        // a wrong key: every request is a 401
        List<String> args = List.of("token-benchmark", "--model", "sim", "--llm-api", "embeddings",
                "--max-num-completed-requests", "4", "--num-concurrent-requests", "2", "--results-dir",
                tmp.toString());
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "wrong"),
                args.toArray(String[]::new));
        assertEquals(4, run.exitCode(), run::toString); // every request failed, as token-benchmark's
        assertTrue(run.out().contains("4 errors"), run::toString);
        JsonNode summary = JSON.readTree(tmp.resolve("sim_550_150_embeddings_summary.json").toFile());
        assertEquals(4, summary.get("num_errors").asInt());
        assertEquals(4, summary.get("errors_by_kind").get("HTTP_STATUS").asInt());
    }

    private static List<CSVRecord> csvRows(Path csv) throws IOException {
        try (Reader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8);
             CSVParser parser = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build()
                     .parse(reader)) {
            return parser.getRecords();
        }
    }
}
