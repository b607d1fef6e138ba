package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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

/**
 * A --workload manifest replayed with another --tokenizer keeps the manifest's input counts while the run counts
 * outputs with its own: the summary records both (the tokenizer QA's item 2: it recorded only {@code
 * settings.tokenizer: jtokkit:cl100k_base} beside number_input_tokens in the manifest's Llama-2 counts).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ManifestInputTokenizerRecordedTest {

    private static CliRun run(SimulatedServer server, Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--max-num-completed-requests", "3", "--num-concurrent-requests", "1", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "4", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--no-server-metrics", "--results-dir", out.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                args.toArray(String[]::new));
    }

    @Test
    void theSummaryNamesTheTokenizerOfTheInputCountsWhenItIsNotTheRuns(@TempDir Path dir) throws Exception {
        Path manifest = dir.resolve("wl.jsonl");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            CliRun saved = run(server, dir.resolve("saved"), "--save-workload", manifest.toString());
            assertEquals(0, saved.exitCode(), saved::toString);
            String counted = new ObjectMapper().readTree(Files.readAllLines(manifest).get(0)).get("tokenizer")
                    .asText();
            CliRun other = run(server, dir.resolve("other"), "--workload", manifest.toString(), "--tokenizer",
                    "cl100k_base");
            assertEquals(0, other.exitCode(), other::toString);
            assertTrue(other.toString().contains("note: the manifest's token counts are by " + counted),
                    other::toString);
            JsonNode settings = RunFolder.summary(dir.resolve("other")).get("settings");
            assertEquals("jtokkit:cl100k_base", settings.get("tokenizer").asText(), settings::toString);
            assertEquals(counted, settings.path("input_tokens_tokenizer").asText(null), settings::toString);
            // the published schema holds the key
            JsonNode document = RunFolder.summary(dir.resolve("other"));
            assertEquals(List.of(), SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                    .getSchema(new ObjectMapper().readTree(SummaryJson.schemaText())).validate(document).stream()
                    .map(e -> e.getInstanceLocation() + ": " + e.getMessage()).toList());

            CliRun same = run(server, dir.resolve("same"), "--workload", manifest.toString());
            assertEquals(0, same.exitCode(), same::toString);
            JsonNode sameSettings = RunFolder.summary(dir.resolve("same")).get("settings");
            assertFalse(sameSettings.has("input_tokens_tokenizer"), sameSettings::toString);
        }
    }
}
