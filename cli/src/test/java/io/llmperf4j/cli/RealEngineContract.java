package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.llama.TinyLlamaModel;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole CLI against a real inference engine serving the generated tiny Llama-2-vocabulary model
 * ({@link TinyLlamaModel}) under the id {@value #MODEL}, with a default of 256 completion tokens. Only a real engine
 * proves the token accounting: its usage counts come from llama.cpp, the client's from the HuggingFace Llama-2
 * tokenizer. Subclasses start the engine: in this JVM, or llama.cpp's own server in a container.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class RealEngineContract {
    static final String MODEL = "tiny-llama";
    /** In a folder of its own: the container mounts the folder. */
    static final Path MODEL_FILE = Path.of("target", "tiny-llama-gguf",
            TinyLlamaModel.fileName(TinyLlamaModel.DEFAULT_SEED));
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    /** The OpenAI base URL of the engine under test. */
    abstract String baseUrl();

    /** The tokens the engine's chat template adds around llmperf's messages, when the test knows them. */
    abstract OptionalInt chatTemplateTokens();

    static Path writeModel() throws IOException {
        return TinyLlamaModel.writeIfAbsent(MODEL_FILE);
    }

    private CliRun run(String... args) {
        return CliRun.of(Map.of("OPENAI_API_BASE", baseUrl(), "OPENAI_API_KEY", "k"), args);
    }

    /**
     * llmperf's own run: every response is max_tokens tokens by llama.cpp's count, and the client's Llama-2 count of
     * the streamed text is that plus BOS, less the bytes of an emoji the budget cut off (llama.cpp never sends them).
     */
    @Test
    void clientTokenCountsMatchTheEnginesUsage(@TempDir Path tmp) throws IOException {
        CliRun run = run("token-benchmark", "--model", MODEL, "--mean-input-tokens", "120",
                "--stddev-input-tokens", "20", "--mean-output-tokens", "40", "--stddev-output-tokens", "8",
                "--max-num-completed-requests", "16", "--num-concurrent-requests", "2",
                "--additional-sampling-params", "{\"temperature\": 0.7, \"top_p\": 0.95}",
                "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Number Of Completed Requests: 16\n"), run::toString);
        assertTrue(run.out().contains("Number Of Errored Requests: 0\n"), run::toString);

        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(tmp.resolve(MODEL + "_120_40_requests.csv"));
        assertEquals(16, rows.size());
        Set<Integer> heldBack = new HashSet<>();
        for (CSVRecord row : rows) {
            int maxTokens = Integer.parseInt(row.get("max_tokens"));
            int server = Integer.parseInt(row.get("output_tokens_server"));
            int client = Integer.parseInt(row.get("output_tokens_client"));
            assertEquals(maxTokens, server, row::toString);
            assertEquals(server + 1 - TinyLlamaModel.heldBackTokens(maxTokens), client, row::toString);
            assertTrue(Integer.parseInt(row.get("prompt_tokens_server")) > 50, row::toString);
            assertTrue(Double.parseDouble(row.get("ttft_s")) > 0, row::toString);
            heldBack.add(TinyLlamaModel.heldBackTokens(maxTokens));
        }
        assertTrue(heldBack.contains(0), "most budgets end between characters: " + heldBack);
    }

    /** With the completions API no template is added: llama.cpp counts exactly the N tokens the client built. */
    @Test
    void exactPromptsAreExactlyNTokensByTheEnginesCount(@TempDir Path tmp) throws IOException {
        CliRun run = run("token-benchmark", "--model", MODEL, "--llm-api", "openai-completions",
                "--prompt-mode", "exact", "--mean-input-tokens", "300", "--stddev-input-tokens", "120",
                "--mean-output-tokens", "8", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "12", "--num-concurrent-requests", "2",
                "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(tmp.resolve(MODEL + "_300_8_requests.csv"));
        assertEquals(12, rows.size());
        Set<String> lengths = new HashSet<>();
        for (CSVRecord row : rows) {
            assertEquals(row.get("number_input_tokens"), row.get("prompt_tokens_server"), row::toString);
            lengths.add(row.get("number_input_tokens"));
        }
        assertTrue(lengths.size() > 6, "prompt lengths vary: " + lengths);
    }

    /** Through the chat template llama.cpp counts N plus the same template tokens for every prompt. */
    @Test
    void exactChatPromptsAreNTokensPlusTheTemplate(@TempDir Path tmp) throws IOException {
        CliRun run = run("token-benchmark", "--model", MODEL, "--prompt-mode", "exact",
                "--mean-input-tokens", "200", "--stddev-input-tokens", "80",
                "--mean-output-tokens", "8", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "10", "--num-concurrent-requests", "2",
                "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        Set<Integer> templateTokens = new HashSet<>();
        for (CSVRecord row : TokenBenchmarkCommandTest.csvRows(tmp.resolve(MODEL + "_200_8_requests.csv"))) {
            templateTokens.add(Integer.parseInt(row.get("prompt_tokens_server"))
                    - Integer.parseInt(row.get("number_input_tokens")));
        }
        assertEquals(1, templateTokens.size(), "the same template tokens on every prompt: " + templateTokens);
        chatTemplateTokens().ifPresent(expected -> assertEquals(Set.of(expected), templateTokens));
    }

    /**
     * The generated text reaches the results files intact: every llama emoji (four byte tokens, one SSE event) is
     * whole, with no replacement character. llmperf's correctness run keeps each generated_text (and finds no
     * number in it: the tiny model only ever says its one sentence).
     */
    @Test
    void multiByteCharactersSplitAcrossTokensArriveIntact(@TempDir Path tmp) throws IOException {
        CliRun run = run("correctness", "--model", MODEL, "--max-num-completed-requests", "3",
                "--num-concurrent-requests", "1", "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Mismatched: 3, Mismatch rate: 1.0\n"), run::toString);
        JsonNode individual = JSON.readTree(tmp.resolve(MODEL + "_correctness_individual_responses.json").toFile());
        assertEquals(3, individual.size());
        // llmperf's correctness body has no max_tokens: the server's default of 256 tokens
        String expected = TinyLlamaModel.generatedText(256);
        assertEquals(25, expected.split("\uD83E\uDD99", -1).length - 1, "25 whole emoji in 256 tokens");
        for (JsonNode entry : individual) {
            String text = entry.get("generated_text").asText();
            assertEquals(expected, text);
            assertFalse(text.contains("\uFFFD"));
        }
    }

    @Test
    void aConcurrencySweepReportsSaneNumbers(@TempDir Path tmp) throws IOException {
        CliRun run = run("token-benchmark", "--model", MODEL, "--mean-input-tokens", "60",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "30", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "6", "--concurrency-sweep", "1,2,4", "--sleep-between", "0",
                "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("failures: none"), run::toString);
        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(tmp.resolve(MODEL + "_60_30_sweep.csv"));
        assertEquals(List.of("1", "2", "4"), rows.stream().map(r -> r.get("level")).toList());
        for (CSVRecord row : rows) {
            assertEquals("6", row.get("successes"), row::toString);
            assertTrue(Double.parseDouble(row.get("output_tok_s")) > 0, row::toString);
            assertTrue(Double.parseDouble(row.get("ttft_p90_ms")) > 0, row::toString);
        }
    }

    @Test
    void doctorPasses() {
        CliRun run = run("doctor", "--model", MODEL);
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.out().contains("[FAIL]"), run::toString);
        for (String check : List.of("base URL", "reachable", "model", "streaming")) {
            assertTrue(run.out().contains("[PASS] " + check), check + " in " + run);
        }
    }
}
