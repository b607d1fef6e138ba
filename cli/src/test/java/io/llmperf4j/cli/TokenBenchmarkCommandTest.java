package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.server.RequestTiming;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The token benchmark command end to end over real sockets, against the embedded simulated server. */
class TokenBenchmarkCommandTest {
    private static final String API_KEY = "sk-test-DO-NOT-LEAK-4f1e2d";
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    /** What the server did for each request (its own send times), by response id. */
    private static final Map<String, RequestTiming> SERVER_LOG = new ConcurrentHashMap<>();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(1))
            .promptTokenCounter(Tokenizers.builtInLlama2())
            .timingListener(t -> SERVER_LOG.put(t.requestId(), t)));

    private static Map<String, String> env() {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", API_KEY);
    }

    @Test
    void llmperfAcceptanceCommandWritesLlmperfFilesAndBlock(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("out");
        CliRun run = CliRun.of(env(), "token-benchmark", "--model", "meta-llama/Llama-2-7b-chat-hf",
                "--mean-input-tokens", "550", "--stddev-input-tokens", "150",
                "--mean-output-tokens", "150", "--stddev-output-tokens", "10",
                "--max-num-completed-requests", "100", "--num-concurrent-requests", "10", "--timeout", "600",
                "--results-dir", out.toString(), "--llm-api", "openai",
                "--additional-sampling-params", "{\"temperature\": 0.7, \"top_p\": 0.95}",
                "--metadata", "framework=sim,run=1");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().startsWith("llmperf4j: meta-llama/Llama-2-7b-chat-hf, concurrency 10, 100 requests "
                + "(100 ok, 0 failed)"), run::toString);
        assertTrue(run.out().contains("\n\\Results for token benchmark for meta-llama/Llama-2-7b-chat-hf "
                + "queried with the openai api.\n\n"), run::toString);
        assertTrue(run.out().matches("(?s).*\nCompleted Requests Per Minute: [0-9.]+\n"),
                "stdout ends with llmperf's block: " + run);
        assertTrue(run.out().contains("Number Of Errored Requests: 0\n"), run::toString);
        assertTrue(run.out().contains("Number Of Completed Requests: 100\n"), run::toString);

        String base = "meta-llama-Llama-2-7b-chat-hf_550_150";
        JsonNode summary = JSON.readTree(out.resolve(base + "_summary.json").toFile());
        assertEquals(expectedSummaryKeys(List.of("additional_sampling_params_temperature",
                "additional_sampling_params_top_p"), List.of("framework", "run")), fieldNames(summary));
        assertEquals(100, summary.get("results_num_completed_requests").asInt());
        assertEquals(0, summary.get("results_number_errors").asInt());
        assertEquals(0.7, summary.get("additional_sampling_params_temperature").asDouble());

        JsonNode individual = JSON.readTree(out.resolve(base + "_individual_responses.json").toFile());
        assertEquals(100, individual.size());
        for (JsonNode request : individual) {
            assertTrue(request.get("error_code").isNull(), request::toString);
            assertTrue(request.get("ttft_s").asDouble() > 0.004, request::toString);
            // equal when the whole answer came in one read, as it does on a loaded machine (then its 150 tokens are
            // a few ms of the server's sending)
            assertTrue(request.get("end_to_end_latency_s").asDouble() >= request.get("ttft_s").asDouble(),
                    request::toString);
        }

        List<CSVRecord> rows = csvRows(out.resolve(base + "_requests.csv"));
        assertEquals(100, rows.size());
        for (CSVRecord row : rows) {
            int maxTokens = Integer.parseInt(row.get("max_tokens"));
            int server = Integer.parseInt(row.get("output_tokens_server"));
            // the simulator honours max_tokens, and its tokens are single Llama-2 tokens: client = server + BOS
            assertEquals(maxTokens, server, row::toString);
            assertEquals(server + 1, Integer.parseInt(row.get("output_tokens_client")), row::toString);
            assertFalse(row.get("client_request_id").isEmpty());
            assertTrue(row.get("server_response_id").startsWith("chatcmpl-"), row::toString);
            // the client's clock runs from before the request arrived to after the server wrote the first and the
            // last chunk: TTFT and E2E are no shorter than the server's own send times say
            RequestTiming sent = SERVER_LOG.get(row.get("server_response_id"));
            long[] chunks = sent.chunkSentNanos();
            assertEquals(server, chunks.length, sent::toString);
            assertTrue(Double.parseDouble(row.get("ttft_s")) * 1e9 >= chunks[0] - sent.arrivalNanos(), row::toString);
            assertTrue(Double.parseDouble(row.get("end_to_end_latency_s")) * 1e9
                    >= chunks[chunks.length - 1] - sent.arrivalNanos(), row::toString);
        }
        assertNoSecretAnywhere(run, tmp);
    }

    @Test
    void withoutOpenAiApiBaseItBenchmarksTheEmbeddedServer(@TempDir Path tmp) throws IOException {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--max-num-completed-requests", "4",
                "--num-concurrent-requests", "2", "--mean-output-tokens", "20", "--stddev-output-tokens", "2",
                "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("OPENAI_API_BASE is not set: benchmarking the embedded simulated server"),
                run::toString);
        assertTrue(run.out().contains("Number Of Completed Requests: 4\n"), run::toString);
        assertTrue(Files.exists(tmp.resolve("llmperf4j-sim_550_20_summary.json")));
        assertTrue(Files.exists(tmp.resolve("llmperf4j-sim_550_20_individual_responses.json")));
        assertTrue(Files.exists(tmp.resolve("llmperf4j-sim_550_20_requests.csv")));
    }

    @Test
    void timeoutCancelsRequestsInFlightAndRecordsThem(@TempDir Path tmp) throws IOException {
        try (SimulatedServer slow = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(100)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", slow.baseUrl(), "OPENAI_API_KEY", API_KEY),
                    "token-benchmark", "--model", "m", "--max-num-completed-requests", "6",
                    "--num-concurrent-requests", "3", "--mean-output-tokens", "100", "--stddev-output-tokens", "0",
                    "--timeout", "1", "--results-dir", tmp.toString());
            assertEquals(4, run.exitCode(), "every request was cancelled, none succeeded: " + run);
            assertTrue(run.out().contains("\nTest timed out before all requests could be completed.\n\\Results"),
                    run::toString);
            assertEquals(1, run.out().split("Test timed out", -1).length - 1, "printed once: " + run);
            JsonNode individual = JSON.readTree(tmp.resolve("m_550_100_individual_responses.json").toFile());
            assertEquals(3, individual.size(), individual::toString);
            for (JsonNode request : individual) {
                assertFalse(request.get("error_code").isNull(), request::toString);
                assertTrue(request.get("error_msg").asText().contains("cancel"), request::toString);
            }
        }
    }

    @Test
    void requestTimeoutFailsSlowRequestsAndKeepsTheRest(@TempDir Path tmp) throws IOException {
        try (SimulatedServer slow = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(50)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", slow.baseUrl(), "OPENAI_API_KEY", API_KEY),
                    "token-benchmark", "--model", "m", "--max-num-completed-requests", "4",
                    "--num-concurrent-requests", "4", "--mean-output-tokens", "60", "--stddev-output-tokens", "0",
                    "--request-timeout", "1.5", "--results-dir", tmp.toString()); // fractions of seconds
            assertEquals(4, run.exitCode(), "every request failed: " + run);
            for (CSVRecord row : csvRows(tmp.resolve("m_550_60_requests.csv"))) {
                assertEquals("REQUEST_TIMEOUT", row.get("error_kind"), row::toString);
                assertTrue(row.get("error_msg").contains("request timeout of 1500 ms"), row::toString);
                assertTrue(Double.parseDouble(row.get("ttft_s")) > 0, "data so far kept: " + row);
            }
        }
    }

    @Test
    void aRunThatDiesStillWritesWhatItRecorded(@TempDir Path tmp) throws IOException {
        Path full = Path.of("/dev/full"); // every write fails with ENOSPC: a disk that fills up mid-run
        Assumptions.assumeTrue(Files.exists(full), "needs Linux /dev/full");
        Files.createSymbolicLink(tmp.resolve("requests.jsonl"), full);
        CliRun run = CliRun.of(env(), "token-benchmark", "--model", "m", "--max-num-completed-requests", "6",
                "--num-concurrent-requests", "2", "--mean-output-tokens", "5", "--results-dir", tmp.toString(),
                "--overwrite"); // the folder holds the broken journal
        assertEquals(1, run.exitCode(), run::toString);
        // the first journal write fails; the records taken with it (both slots may end together) are kept too, in the
        // files written from memory, and the error says the journal kept none of them
        Matcher failedAfter = Pattern.compile("llmperf4j: error: the run failed after (\\d+) finished requests?, 0 "
                + "kept in requests.jsonl").matcher(run.err());
        assertTrue(failedAfter.find(), run::toString);
        int recorded = Integer.parseInt(failedAfter.group(1));
        assertTrue(recorded == 1 || recorded == 2, run::toString);
        assertTrue(run.err().contains("the requests recorded until then are written to " + tmp), run::toString);
        JsonNode individual = JSON.readTree(tmp.resolve("m_550_5_individual_responses.json").toFile());
        assertEquals(recorded, individual.size(), individual::toString);
        assertTrue(Files.exists(tmp.resolve("m_550_5_summary.json")));
        assertEquals(recorded, csvRows(tmp.resolve("m_550_5_requests.csv")).size());
    }

    @Test
    void apiKeyFileReplacesTheEnvironmentVariable(@TempDir Path tmp) throws IOException {
        Path keyFile = tmp.resolve("key.txt");
        Files.writeString(keyFile, API_KEY + "\n");
        try (SimulatedServer guarded = SimulatedServer.start(SimulatorConfig.builder().apiKey(API_KEY)
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1)).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", guarded.baseUrl());
            CliRun run = CliRun.of(env, "token-benchmark", "--model", "m", "--max-num-completed-requests", "3",
                    "--mean-output-tokens", "5", "--stddev-output-tokens", "0", "--api-key-file", keyFile.toString(),
                    "--header", "X-Gateway-Tenant: team-a", "--results-dir", tmp.resolve("out").toString());
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.out().contains("Number Of Errored Requests: 0\n"), run::toString);

            Files.writeString(keyFile, "sk-wrong\n");
            CliRun rejected = CliRun.of(env, "token-benchmark", "--model", "m", "--max-num-completed-requests", "2",
                    "--mean-output-tokens", "5", "--api-key-file", keyFile.toString());
            assertEquals(1, rejected.exitCode(), rejected::toString); // the pre-run request is refused: no run
            assertTrue(rejected.err().contains("with HTTP 401: Incorrect API key provided; "), rejected::toString);
            assertTrue(rejected.err().contains("check the API key in --api-key-file " + keyFile), "the key's own "
                    + "source, not OPENAI_API_KEY, which is unset: " + rejected);
            assertFalse(rejected.out().contains("sk-wrong") || rejected.err().contains("sk-wrong"));
        }
    }

    private static List<String> expectedSummaryKeys(List<String> samplingKeys, List<String> metadataKeys) {
        List<String> keys = new ArrayList<>(List.of("version", "name", "model", "mean_input_tokens",
                "stddev_input_tokens", "mean_output_tokens", "stddev_output_tokens", "num_concurrent_requests"));
        keys.addAll(samplingKeys);
        for (String metric : List.of("inter_token_latency_s", "ttft_s", "end_to_end_latency_s",
                "request_output_throughput_token_per_s", "number_input_tokens", "number_output_tokens")) {
            for (String q : List.of("p25", "p50", "p75", "p90", "p95", "p99")) {
                keys.add("results_" + metric + "_quantiles_" + q);
            }
            for (String stat : List.of("mean", "min", "max", "stddev")) {
                keys.add("results_" + metric + "_" + stat);
            }
        }
        keys.addAll(List.of("results_num_requests_started", "results_error_rate", "results_number_errors",
                "results_error_code_frequency", "results_mean_output_throughput_token_per_s",
                "results_num_completed_requests", "results_num_completed_requests_per_min"));
        keys.addAll(metadataKeys);
        keys.add("timestamp");
        return keys;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    static List<CSVRecord> csvRows(Path csv) throws IOException {
        try (Reader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8);
             CSVParser parser = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get()
                     .parse(reader)) {
            return parser.getRecords();
        }
    }

    static void assertNoSecretAnywhere(CliRun run, Path folder) throws IOException {
        assertFalse(run.out().contains(API_KEY), "stdout leaks the API key");
        assertFalse(run.err().contains(API_KEY), "stderr leaks the API key");
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertFalse(Files.readString(file, StandardCharsets.ISO_8859_1).contains(API_KEY),
                        file + " leaks the API key");
            }
        }
    }
}
