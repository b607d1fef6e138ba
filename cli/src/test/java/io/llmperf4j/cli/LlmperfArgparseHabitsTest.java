package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What llmperf's argparse accepts, the real command accepts the same way: unique prefixes of an option's name
 * (the QA's {@code --max-num 2}, {@code --mean-input 100}), a prefix several options start with refused naming them,
 * and {@code --additional-sampling-params null} (json.loads gives None, which llmperf turns into {}).
 */
class LlmperfArgparseHabitsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode summary(Path dir, String base) throws IOException {
        return JSON.readTree(Files.readString(dir.resolve(base + "_summary.json")));
    }

    @Test
    void uniquePrefixesOfLlmperfsFlagsWork(@TempDir Path tmp) throws IOException {
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--mod", "m", "--max-num", "2", "--mean-input", "100", "--stddev-in", "0",
                    "--mean-out=7", "--stddev-output", "0", "--num-c", "1", "--no-client-warmup", "--results",
                    tmp.toString());
            assertEquals(0, run.exitCode(), run::toString);
            JsonNode summary = summary(tmp, "m_100_7");
            assertEquals(100, summary.get("mean_input_tokens").asInt(), summary::toString);
            assertEquals(1, summary.get("num_concurrent_requests").asInt(), summary::toString);
            assertEquals(2, summary.get("results_num_completed_requests").asInt(), summary::toString);
            assertEquals(2, server.bodies().size());
            assertEquals(7, server.bodies().get(0).get("max_tokens").asInt());
        }
    }

    /**
     * A repeated option counts by its full name, an abbreviation included: the last occurrence wins and the other
     * llmperf flags given before it stay (a repeated option of a help section would otherwise start the section
     * anew).
     */
    @Test
    void anAbbreviationAndTheFullNameAreOneOptionWhoseLastOccurrenceWins(@TempDir Path tmp) throws IOException {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--mean-input", "100", "--max-num", "5",
                "--mean-output-tokens", "4", "--stddev-output-tokens", "0", "--max-num-completed-requests", "2",
                "--no-client-warmup", "--no-server-metrics", "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = summary(tmp, "llmperf4j-sim_100_4");
        assertEquals(2, summary.get("results_num_completed_requests").asInt(), summary::toString);
    }

    @Test
    void aPrefixSeveralOptionsStartWithIsRefusedNamingThem() {
        CliRun.of(Map.of(), "token-benchmark", "--max", "2").assertOneErrorLine(ExitCodes.USAGE,
                "ambiguous option: --max could match --max-num-completed-requests, --max-tokens, --max-concurrency, "
                        + "--max-error-rate (see 'llmperf4j token-benchmark --help')");
        CliRun.of(Map.of(), "correctness", "--re=x").assertOneErrorLine(ExitCodes.USAGE,
                "ambiguous option: --re could match --results-dir, --request-timeout");
        // only the commands that stand in for llmperf's scripts take them
        CliRun.of(Map.of(), "calibrate", "--requ", "4").assertOneErrorLine(ExitCodes.USAGE,
                "Unknown option: '--requ'");
    }

    @Test
    void correctnessTakesThemToo() {
        CliRun run = CliRun.of(Map.of(), "correctness", "--max-num", "1", "--num-con", "1");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Completed: 1\n"), run::toString);
    }

    /** Every JSON value Python deems empty is llmperf's {}: the request body is the one '{}' gives. */
    @Test
    void emptyJsonValuesAreNoSamplingParams(@TempDir Path tmp) throws IOException {
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            List<String> keys = new ArrayList<>();
            for (String params : List.of("{}", "null", "false", "[]", "\"\"", "0")) {
                server.bodies.clear();
                CliRun run = CliRun.of(env, "token-benchmark", "--model", "m", "--max-num-completed-requests", "1",
                        "--num-concurrent-requests", "1", "--mean-output-tokens", "3", "--no-client-warmup",
                        "--additional-sampling-params", params);
                assertEquals(0, run.exitCode(), params + ": " + run);
                List<String> fields = new ArrayList<>();
                server.bodies().get(0).fieldNames().forEachRemaining(fields::add);
                keys.add(params + " " + fields);
            }
            String expected = keys.get(0).substring(3);
            for (String k : keys) assertTrue(k.endsWith(expected), keys.toString());
        }
        CliRun.of(Map.of(), "token-benchmark", "--additional-sampling-params", "[1]")
                .assertOneErrorLine(ExitCodes.USAGE, "must be a JSON object");
    }
}
