package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.tokenize.Tokenizers;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every workload source of token-benchmark, end to end against the embedded server. */
class WorkloadOptionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(1))
            .interTokenDelay(Duration.ZERO).promptTokenCounter(Tokenizers.builtInLlama2()));

    private static CliRun bench(Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--max-num-completed-requests", "6", "--num-concurrent-requests", "3", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(server.env(),
                args.toArray(String[]::new));
    }

    private static List<CSVRecord> rows(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            Path csv = files.filter(p -> p.getFileName().toString().endsWith("_requests.csv")).findFirst().orElseThrow();
            return TokenBenchmarkCommandTest.csvRows(csv);
        }
    }

    @Test
    void shareGptConversationsRunEndToEnd(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("sg.jsonl");
        Files.writeString(file, String.join("\n",
                "{\"conversations\": [{\"from\": \"human\", \"value\": \"What is a tokenizer?\"}, "
                        + "{\"from\": \"gpt\", \"value\": \"It splits text into tokens the model knows.\"}]}",
                "{\"conversations\": [{\"from\": \"human\", \"value\": \"Name three colours.\"}, "
                        + "{\"from\": \"gpt\", \"value\": \"Red, green and blue.\"}]}",
                "{\"conversations\": [{\"from\": \"human\", \"value\": \"No answer here.\"}]}"));
        CliRun run = bench(dir.resolve("out"), "--dataset", "sharegpt:" + file);
        assertEquals(0, run.exitCode(), run::toString);
        List<CSVRecord> rows = rows(dir.resolve("out"));
        assertEquals(6, rows.size());
        var tokenizer = Tokenizers.builtInLlama2();
        for (CSVRecord row : rows) {
            int maxTokens = Integer.parseInt(row.get("max_tokens"));
            assertTrue(maxTokens == tokenizer.countWithoutSpecialTokens("It splits text into tokens the model knows.")
                    || maxTokens == tokenizer.countWithoutSpecialTokens("Red, green and blue."), row::toString);
            assertEquals(row.get("max_tokens"), row.get("output_tokens_server"));
        }
    }

    @Test
    void aJsonlPromptFileRunsEndToEnd(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("prompts.jsonl");
        Files.writeString(file, "{\"prompt\": \"Say one word.\", \"max_tokens\": 3}\n"
                + "{\"prompt\": \"Say two words.\", \"max_tokens\": 5}\n");
        CliRun run = bench(dir.resolve("out"), "--dataset", "prompts:" + file);
        assertEquals(0, run.exitCode(), run::toString);
        List<String> maxTokens = rows(dir.resolve("out")).stream().map(r -> r.get("max_tokens")).sorted().toList();
        assertEquals(List.of("3", "3", "3", "5", "5", "5"), maxTokens);
    }

    @Test
    void aFixedPromptIsSentWithItsMaxTokens(@TempDir Path dir) throws IOException {
        CliRun run = bench(dir.resolve("out"), "--prompt", "Hello, who are you?", "--max-tokens", "8");
        assertEquals(0, run.exitCode(), run::toString);
        int expectedInput = Tokenizers.builtInLlama2().count("Hello, who are you?");
        for (CSVRecord row : rows(dir.resolve("out"))) {
            assertEquals("8", row.get("max_tokens"));
            assertEquals("8", row.get("output_tokens_server"));
            assertEquals(Integer.toString(expectedInput), row.get("number_input_tokens"));
        }
    }

    @ParameterizedTest
    @CsvSource({"t1,en,16", "t2,zh,64", "t3,en,512", "t4,zh,2048"})
    void eachScenarioPresetRunsWithItsMaxTokens(String scenario, String lang, int maxTokens, @TempDir Path dir)
            throws IOException {
        CliRun run = bench(dir, "--scenario", scenario, "--scenario-lang", lang, "--max-num-completed-requests", "2");
        assertEquals(0, run.exitCode(), run::toString);
        List<CSVRecord> sent = rows(dir);
        for (CSVRecord row : sent) {
            assertEquals(Integer.toString(maxTokens), row.get("max_tokens"));
            assertEquals(Integer.toString(maxTokens), row.get("output_tokens_server"));
        }
        // the files are named after what was sent (the preset's prompt and max_tokens), not --mean-*-tokens
        String prompt = sent.get(0).get("number_input_tokens");
        assertTrue(Files.exists(dir.resolve("m_" + prompt + "_" + maxTokens + "_summary.json")), run::toString);
    }

    @Test
    void theSameSeedGivesIdenticalManifestsAtAnyConcurrencyAndReplaysExactly(@TempDir Path dir) throws IOException {
        Path m1 = dir.resolve("c1.jsonl");
        Path m64 = dir.resolve("c64.jsonl");
        assertEquals(0, bench(dir.resolve("a"), "--num-concurrent-requests", "1", "--seed", "7",
                "--save-workload", m1.toString()).exitCode());
        assertEquals(0, bench(dir.resolve("b"), "--num-concurrent-requests", "64", "--seed", "7",
                "--save-workload", m64.toString()).exitCode());
        assertArrayEquals(Files.readAllBytes(m1), Files.readAllBytes(m64));

        CliRun replay = bench(dir.resolve("c"), "--workload", m1.toString());
        assertEquals(0, replay.exitCode(), replay::toString);
        List<String> manifestLines = Files.readAllLines(m1);
        List<String> sentInputs = rows(dir.resolve("c")).stream()
                .sorted((x, y) -> Integer.compare(Integer.parseInt(x.get("prompt_index")),
                        Integer.parseInt(y.get("prompt_index"))))
                .map(r -> r.get("number_input_tokens")).toList();
        List<String> manifestInputs = new ArrayList<>();
        for (String line : manifestLines.subList(1, manifestLines.size())) {
            manifestInputs.add(JSON.readTree(line).get("number_input_tokens").asText());
        }
        assertEquals(manifestInputs, sentInputs);
    }

    @Test
    void serverTokenizerCountsOutputsFromUsage(@TempDir Path dir) throws IOException {
        CliRun run = bench(dir.resolve("out"), "--tokenizer", "server", "--mean-output-tokens", "20",
                "--stddev-output-tokens", "0");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode individual = JSON.readTree(dir.resolve("out/m_550_20_individual_responses.json").toFile());
        for (JsonNode request : individual) {
            assertEquals(20, request.get("number_output_tokens").asInt(), request::toString);
        }
        JsonNode summary = JSON.readTree(dir.resolve("out/m_550_20_llmperf4j_summary.json").toFile());
        assertTrue(summary.toString().contains("outputs: server usage"), summary::toString);

        CliRun noUsage = bench(dir.resolve("none"), "--tokenizer", "server", "--no-stream-usage");
        assertEquals(1, noUsage.exitCode(), noUsage::toString);
        assertTrue(noUsage.err().contains("--tokenizer server: the server sent no usage"), noUsage::toString);
    }

    @Test
    void aJtokkitEncodingCountsAndIsRecorded(@TempDir Path dir) throws IOException {
        CliRun run = bench(dir, "--tokenizer", "cl100k_base", "--prompt", "Hello world", "--max-tokens", "4");
        assertEquals(0, run.exitCode(), run::toString);
        for (CSVRecord row : rows(dir)) {
            assertEquals("2", row.get("number_input_tokens")); // cl100k: no BOS, "Hello world" is 2 tokens
        }
        assertTrue(Files.readString(dir.resolve("m_2_4_llmperf4j_summary.json")).contains("jtokkit:cl100k_base"),
                "named after what was sent: 2 prompt tokens, max_tokens 4");
    }

    @Test
    void malformedInputNamesTheFileAndLine(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, "{\"prompt\": \"ok\"}\n{\"prompt\": \n");
        CliRun run = bench(dir.resolve("out"), "--dataset", "prompts:" + file);
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().contains(file.toString()) && run.err().contains("line 2"), run::toString);
        assertEquals(1, run.err().lines().count(), run::toString);

        CliRun missing = bench(dir.resolve("out"), "--dataset", "sharegpt:" + dir.resolve("nope.json"));
        assertEquals(2, missing.exitCode(), missing::toString);
        assertTrue(missing.err().contains("nope.json"), missing::toString);

        CliRun unknown = bench(dir.resolve("out"), "--tokenizer", "no-such-tokenizer");
        assertEquals(2, unknown.exitCode(), unknown::toString);
        assertTrue(unknown.err().contains("--tokenizer"), unknown::toString);

        CliRun two = bench(dir.resolve("out"), "--scenario", "t1", "--prompt", "x", "--max-tokens", "2");
        assertEquals(2, two.exitCode(), two::toString);
        assertTrue(two.err().contains("choose one workload source"), two::toString);
    }
}
