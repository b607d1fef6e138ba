package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a server does against the API and the user must see, through the real client against the simulator:
 * output beyond max_tokens, a 1 MiB event (oversized_event), streams without their end marker.
 */
class ServerDeviationWarningsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String BASE = "m_60_20";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(2))
            .interTokenDelay(Duration.ofMillis(1)));

    private static CliRun run(Path dir, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--max-num-completed-requests", "6", "--num-concurrent-requests", "2", "--mean-input-tokens", "60",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                args.toArray(String[]::new));
    }

    private static String warnings(Path dir) throws IOException {
        return JSON.readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile()).get("warnings").toString();
    }

    @Test
    void outputBeyondMaxTokensIsWarnedOnTheConsoleAndInTheSummary(@TempDir Path dir) throws IOException {
        // the body asks max_completion_tokens 30 beside max_tokens 20, and the simulator (as vLLM) takes the
        // first: 10 tokens too many for the max_tokens sent (a max_tokens there would be the one sent, and recorded)
        CliRun run = run(dir, "--additional-sampling-params", "{\"max_completion_tokens\": 30}");
        assertEquals(0, run.exitCode(), run::toString);
        String expected = "6 of 6 requests with server usage returned more output tokens than their max_tokens, by "
                + "10.0 on average and at most 10 (30 tokens for max_tokens 20)";
        assertTrue(run.out().contains("[MAX_TOKENS_EXCEEDED] " + expected), run::toString);
        assertTrue(warnings(dir).contains(expected), () -> {
            try {
                return warnings(dir);
            } catch (IOException e) {
                return e.toString();
            }
        });
    }

    @Test
    void streamsEndingCleanlyWithoutDoneSucceedWithAWarning(@TempDir Path dir) throws IOException {
        CliRun run = run(dir, "--header", "X-Sim-Fault: missing_done");
        assertEquals(0, run.exitCode(), run::toString);
        String expected = "6 of 6 successful streams ended without data: [DONE] (Anthropic: event: message_stop) "
                + "after their finish reason";
        assertTrue(run.out().contains("[END_MARKER_MISSING] " + expected), run::toString);
        assertTrue(warnings(dir).contains(expected), dir::toString);
        for (CSVRecord row : TokenBenchmarkCommandTest.csvRows(dir.resolve(BASE + "_requests.csv"))) {
            assertEquals("", row.get("error_kind"), row::toString);
            assertEquals("length", row.get("finish_reason"), row::toString);
            assertEquals("20", row.get("output_tokens_server"), row::toString);
        }
    }

    @Test
    void anOversizedEventIsRecordedAsTheCleanRequest(@TempDir Path dir) throws IOException {
        CliRun run = run(dir, "--header", "X-Sim-Fault: oversized_event");
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.out().contains("MAX_TOKENS_EXCEEDED"), run::toString);
        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(dir.resolve(BASE + "_requests.csv"));
        assertEquals(6, rows.size());
        for (CSVRecord row : rows) {
            assertEquals("", row.get("error_kind"), row::toString);
            assertEquals("20", row.get("output_tokens_server"), row::toString);
            assertEquals("21", row.get("output_tokens_client"), row::toString); // BOS included, as llmperf
        }
    }
}
