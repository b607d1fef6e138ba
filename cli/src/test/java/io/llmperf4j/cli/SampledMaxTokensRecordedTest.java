package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A max_tokens in --additional-sampling-params replaces the drawn one in the body (llmperf's dict.update), and the
 * files keep the one sent (the tokenizer QA: the server got 5, requests.jsonl and the CSV said the drawn 100, so
 * MAX_TOKENS_EXCEEDED compared usage with 100 and EARLY_STOP called 2 tokens of 5 "1 % of max_tokens").
 */
class SampledMaxTokensRecordedTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theFilesKeepTheMaxTokensTheBodyCarried(@TempDir Path dir) throws IOException {
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--mean-input-tokens", "60", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "100", "--stddev-output-tokens", "0", "--max-num-completed-requests", "3",
                    "--num-concurrent-requests", "1", "--additional-sampling-params", "{\"max_tokens\": 5}",
                    "--no-server-metrics", "--no-client-warmup", "--results-dir", dir.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl")).stream()
                .filter(l -> !l.isBlank()).toList();
        assertEquals(3, lines.size());
        for (String line : lines) {
            JsonNode r = JSON.readTree(line);
            assertEquals(5, r.get("max_tokens").asInt(), line);
            assertEquals(5, r.get("usage_completion_tokens").asInt(), line); // the simulator honoured the body's
        }
        for (CSVRecord row : RunFolder.csv(dir)) assertEquals("5", row.get("max_tokens"), row::toString);
        JsonNode summary = RunFolder.summary(dir);
        assertNull(RunFolder.warning(summary, "EARLY_STOP"), summary::toString);
        assertNull(RunFolder.warning(summary, "MAX_TOKENS_EXCEEDED"), summary::toString);
    }
}
