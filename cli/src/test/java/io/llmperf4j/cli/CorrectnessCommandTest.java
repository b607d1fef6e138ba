package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.cli.NumberAnsweringServer.Status;
import io.llmperf4j.cli.NumberAnsweringServer.StreamError;
import io.llmperf4j.datasets.CorrectnessPrompts;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.cli.NumberAnsweringServer.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The correctness command end to end over real sockets on 127.0.0.1. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CorrectnessCommandTest {
    private static final String API_KEY = "sk-test-DO-NOT-LEAK-c0rr3ct";
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    private static Map<String, String> env(String baseUrl) {
        return Map.of("OPENAI_API_BASE", baseUrl, "OPENAI_API_KEY", API_KEY);
    }

    private static List<Long> numbers(long seed, int count) {
        return CorrectnessPrompts.generate(seed, count).stream().map(i -> (long) i.number()).toList();
    }

    private static String grouped(long n) {
        return new DecimalFormat("#,##0", DecimalFormatSymbols.getInstance(Locale.ROOT)).format(n);
    }

    private static List<Long> sorted(List<Long> values) {
        List<Long> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }

    @Test
    void passesMismatchesAndErrorsAreCountedExactly(@TempDir Path tmp) throws IOException {
        // by n mod 4: digits with thousands commas (pass), digits after a newline (pass), n + 1 (mismatch), HTTP 503
        try (NumberAnsweringServer server = new NumberAnsweringServer(n -> switch ((int) (n % 4)) {
            case 0 -> say("The number is ", grouped(n), ".");
            case 1 -> say("Answer:\n", Long.toString(n), "\nDone.");
            case 2 -> say("The number is\n", grouped(n + 1));
            default -> new Status(503, "overloaded " + n);
        })) {
            CliRun run = CliRun.of(env(server.baseUrl()), "correctness", "--model", "meta-llama/Llama-2-7b-chat-hf",
                    "--max-num-completed-requests", "12", "--num-concurrent-requests", "3",
                    "--additional-sampling-params", "{\"top_p\": 0.9}", "--metadata", "framework=test",
                    "--results-dir", tmp.toString());
            assertEquals(0, run.exitCode(), run::toString);

            List<Long> expected = numbers(11111, 12);
            assertEquals(List.of(5388L, 431L, 5849L, 5906L, 6565L, 1842L, 8343L, 2797L, 2133L, 5896L, 5465L, 6110L),
                    expected);
            assertEquals(sorted(expected), sorted(server.numbers), "each number sent exactly once");
            long mismatched = expected.stream().filter(n -> n % 4 == 2).count();
            long errored = expected.stream().filter(n -> n % 4 == 3).count();
            assertEquals(3, mismatched);
            assertEquals(2, errored);

            assertTrue(run.out().startsWith("Mismatched and errored requests.\n"), run::toString);
            assertTrue(run.out().endsWith("\n\n"
                    + "Results for llm correctness test for meta-llama/Llama-2-7b-chat-hf queried with the openai api.\n"
                    + "Errors: 2, Error rate: 0.16666666666666666\n"
                    + "Mismatched: 3, Mismatch rate: 0.25\n"
                    + "Completed: 12\n"
                    + "Completed without errors: 10\n"), run::toString);
            for (long n : expected) {
                String mismatchLine = "    mismatched request: The number is " + (n + 1) + ", expected: " + n + "\n";
                String errorLine = "    The request errored: 503, overloaded " + n + " \n";
                assertEquals(n % 4 == 2, run.out().contains(mismatchLine), mismatchLine + run);
                assertEquals(n % 4 == 3, run.out().contains(errorLine), errorLine + run);
            }
            assertEquals(1 + 3 + 2 + 1 + 5, run.out().lines().count(), run::toString);

            for (JsonNode body : server.bodies) { // llmperf's body: no max_tokens, no stream_options
                assertEquals(List.of("model", "messages", "stream", "temperature", "top_p"), fieldNames(body));
                assertEquals(0.0, body.get("temperature").doubleValue());
                assertTrue(body.get("temperature").isFloatingPointNumber());
                assertEquals("", body.at("/messages/0/content").asText());
            }

            JsonNode summary = JSON.readTree(tmp.resolve("meta-llama-Llama-2-7b-chat-hf_correctness_summary.json")
                    .toFile());
            assertEquals(List.of("version", "name", "number_errors", "num_mismatched_requests", "error_rate",
                    "mismatch_rate", "num_completed_requests", "num_non_errored_requests", "model",
                    "num_concurrent_requests", "additional_sampling_params_top_p", "llm_api", "framework",
                    "timestamp"), fieldNames(summary));
            assertEquals("2023-08-31", summary.get("version").asText());
            assertEquals("meta-llama-Llama-2-7b-chat-hf_correctness_summary", summary.get("name").asText());
            assertEquals(2, summary.get("number_errors").asInt());
            assertEquals(3, summary.get("num_mismatched_requests").asInt());
            assertEquals(2.0 / 12, summary.get("error_rate").asDouble());
            assertEquals(0.25, summary.get("mismatch_rate").asDouble());
            assertEquals(12, summary.get("num_completed_requests").asInt());
            assertEquals(10, summary.get("num_non_errored_requests").asInt());
            assertEquals(3, summary.get("num_concurrent_requests").asInt());
            assertEquals(0.9, summary.get("additional_sampling_params_top_p").asDouble());
            assertEquals("test", summary.get("framework").asText());
            assertTrue(summary.get("timestamp").isIntegralNumber());

            JsonNode individual = JSON.readTree(
                    tmp.resolve("meta-llama-Llama-2-7b-chat-hf_correctness_individual_responses.json").toFile());
            assertEquals(12, individual.size());
            List<Long> recorded = new ArrayList<>();
            for (JsonNode entry : individual) {
                assertEquals(List.of("metrics", "generated_text", "request_config"), fieldNames(entry));
                JsonNode metrics = entry.get("metrics");
                assertEquals(List.of("error_code", "error_msg", "inter_token_latency_s", "ttft_s",
                        "end_to_end_latency_s", "request_output_throughput_token_per_s", "number_total_tokens",
                        "number_output_tokens", "number_input_tokens"), fieldNames(metrics));
                JsonNode config = entry.get("request_config");
                assertEquals(List.of("model", "prompt", "sampling_params", "llm_api", "metadata"),
                        fieldNames(config));
                long n = config.at("/metadata/rnd_number").asLong();
                recorded.add(n);
                assertEquals(CorrectnessPrompts.prompt(io.llmperf4j.datasets.NumberWords.toWords(n)),
                        config.at("/prompt/0").asText());
                assertEquals(0, config.at("/prompt/1").asInt());
                assertEquals("{\"temperature\":0.0,\"top_p\":0.9}", config.get("sampling_params").toString());
                assertEquals(0, metrics.get("number_input_tokens").asInt());
                if (n % 4 == 3) {
                    assertEquals(503, metrics.get("error_code").asInt());
                    assertEquals("overloaded " + n, metrics.get("error_msg").asText());
                    assertEquals(0, metrics.get("end_to_end_latency_s").asInt());
                    assertTrue(metrics.get("end_to_end_latency_s").isIntegralNumber());
                    assertEquals(0, metrics.get("number_output_tokens").asInt());
                } else {
                    assertTrue(metrics.get("error_code").isNull());
                    int events = n % 4 == 2 ? 4 : 5; // role chunk, the content pieces, finish chunk
                    assertEquals(events, metrics.get("number_output_tokens").asInt(), entry::toString);
                    assertEquals(events, metrics.get("number_total_tokens").asInt());
                    double ttft = metrics.get("ttft_s").asDouble();
                    double itl = metrics.get("inter_token_latency_s").asDouble();
                    double e2e = metrics.get("end_to_end_latency_s").asDouble();
                    assertTrue(ttft > 0 && ttft <= itl && itl <= e2e, entry::toString); // ITL: raw sum of gaps
                    assertEquals(events / e2e, metrics.get("request_output_throughput_token_per_s").asDouble(),
                            1e-9 * events / e2e);
                }
            }
            assertEquals(sorted(expected), sorted(recorded));
            TokenBenchmarkCommandTest.assertNoSecretAnywhere(run, tmp);
        }
    }

    @Test
    void everyRightAnswerPassesAndTheSeedFixesTheNumbers() throws IOException {
        try (NumberAnsweringServer server = new NumberAnsweringServer(n -> say(Long.toString(n)))) {
            CliRun run = CliRun.of(env(server.baseUrl()), "correctness", "--model", "m", "--seed", "7",
                    "--max-num-completed-requests", "20", "--num-concurrent-requests", "20");
            assertEquals(0, run.exitCode(), run::toString);
            assertEquals("Mismatched and errored requests.\n\n"
                    + "Results for llm correctness test for m queried with the openai api.\n"
                    + "Errors: 0, Error rate: 0.0\n"
                    + "Mismatched: 0, Mismatch rate: 0.0\n"
                    + "Completed: 20\n"
                    + "Completed without errors: 20\n", run.out());
            assertEquals(sorted(numbers(7, 20)), sorted(server.numbers));

            server.numbers.clear();
            assertEquals(0, CliRun.of(env(server.baseUrl()), "correctness", "--model", "m", "--seed", "7",
                    "--max-num-completed-requests", "20", "--num-concurrent-requests", "4").exitCode());
            assertEquals(sorted(numbers(7, 20)), sorted(server.numbers), "same seed, same numbers");
        }
    }

    @Test
    void errorEventsInTheStreamAreErrors() throws IOException {
        try (NumberAnsweringServer server = new NumberAnsweringServer(n -> new StreamError(429, "rate limited"))) {
            CliRun run = CliRun.of(env(server.baseUrl()), "correctness", "--model", "m",
                    "--max-num-completed-requests", "4", "--num-concurrent-requests", "2");
            assertEquals(0, run.exitCode(), run::toString);
            assertEquals("Mismatched and errored requests.\n"
                    + "    The request errored: 429, rate limited \n".repeat(4) + "\n"
                    + "Results for llm correctness test for m queried with the openai api.\n"
                    + "Errors: 4, Error rate: 1.0\n"
                    + "Mismatched: 0, Mismatch rate: 0.0\n"
                    + "Completed: 4\n"
                    + "Completed without errors: 0\n", run.out());
        }
    }

    @Test
    void aMismatchedAnswersControlCharactersArePrintable() throws IOException {
        // an ANSI colour, a NUL, a CR and a bidirectional override in the answer; the LF is llmperf's space
        try (NumberAnsweringServer server = new NumberAnsweringServer(n -> say("\u001b[31mThe number\u0000 is\r\n",
                Long.toString(n + 1), "\u202e!"))) {
            CliRun run = CliRun.of(env(server.baseUrl()), "correctness", "--model", "m",
                    "--max-num-completed-requests", "2", "--num-concurrent-requests", "1");
            assertEquals(0, run.exitCode(), run::toString);
            for (long n : numbers(11111, 2)) {
                String line = "    mismatched request: \\x1b[31mThe number\\x00 is\\r " + (n + 1) + "\\u202e!, "
                        + "expected: " + n + "\n";
                assertTrue(run.out().contains(line), line + run);
            }
            for (char c : new char[] {'\u001b', '\u0000', '\r', '\u202e'}) {
                assertEquals(-1, run.out().indexOf(c), (int) c + " in " + run);
            }
        }
    }

    @Test
    void theSimulatorsWordsAreAllMismatches(@TempDir Path tmp) throws IOException {
        try (SimulatedServer sim = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1))
                .defaultMaxTokens(20).build())) {
            CliRun run = CliRun.of(env(sim.baseUrl()), "correctness", "--model", "gpt-3.5-turbo",
                    "--max-num-completed-requests", "6", "--num-concurrent-requests", "3",
                    "--results-dir", tmp.toString());
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.out().endsWith("Errors: 0, Error rate: 0.0\nMismatched: 6, Mismatch rate: 1.0\n"
                    + "Completed: 6\nCompleted without errors: 6\n"), run::toString);
            for (long n : numbers(11111, 6)) {
                assertTrue(run.out().contains(", expected: " + n + "\n"), n + " in " + run);
            }
            JsonNode individual = JSON.readTree(
                    tmp.resolve("gpt-3-5-turbo_correctness_individual_responses.json").toFile());
            assertEquals(6, individual.size());
            for (JsonNode entry : individual) {
                // the simulator streams 20 tokens (no max_tokens was sent): role chunk + 20 + finish chunk
                assertEquals(22, entry.at("/metrics/number_output_tokens").asInt(), entry::toString);
                assertFalse(entry.get("generated_text").asText().isEmpty());
            }
            assertTrue(Files.exists(tmp.resolve("gpt-3-5-turbo_correctness_summary.json")));
        }
    }

    @Test
    void withoutOpenAiApiBaseItTestsTheEmbeddedServer() {
        CliRun run = CliRun.of(Map.of(), "correctness", "--max-num-completed-requests", "2",
                "--num-concurrent-requests", "2");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("OPENAI_API_BASE is not set: benchmarking the embedded simulated server"),
                run::toString);
        assertTrue(run.out().contains("    mismatched request: "), run::toString);
        assertTrue(run.out().endsWith("Results for llm correctness test for llmperf4j-sim queried with the openai api.\n"
                + "Errors: 0, Error rate: 0.0\nMismatched: 2, Mismatch rate: 1.0\n"
                + "Completed: 2\nCompleted without errors: 2\n" + SimulatorNotice.line(new io.llmperf4j.run.EndpointTarget
                .Embedded()) + "\n"), run::toString);
    }

    @Test
    void timeoutCancelsRequestsInFlightAndCountsThemAsErrors() {
        try (SimulatedServer slow = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(100)).build())) {
            CliRun run = CliRun.of(env(slow.baseUrl()), "correctness", "--model", "m",
                    "--max-num-completed-requests", "6", "--num-concurrent-requests", "3", "--timeout", "1");
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.out().startsWith("Test timed out before all requests could be completed.\n"
                    + "Mismatched and errored requests.\n"), run::toString);
            assertEquals(3, run.out().lines().filter(l -> l.startsWith("    The request errored: -1, ")).count(),
                    run::toString);
            assertTrue(run.out().endsWith("Errors: 3, Error rate: 1.0\nMismatched: 0, Mismatch rate: 0.0\n"
                    + "Completed: 3\nCompleted without errors: 0\n"), run::toString);
        }
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
