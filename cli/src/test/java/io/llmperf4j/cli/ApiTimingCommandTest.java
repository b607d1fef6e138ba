package io.llmperf4j.cli;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 7's acceptance: every streaming --llm-api measures the simulator's timing contract (TTFT, then one token
 * every inter-token delay) and its token counts, end to end from the command line over a socket. The server never
 * sends early, so the contract gives lower bounds; the upper bounds only catch a gross error (not a speed target).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ApiTimingCommandTest {
    private static final long TTFT_MS = 40;
    private static final long ITL_MS = 6;
    private static final int OUTPUT_TOKENS = 12;

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(TTFT_MS))
            .interTokenDelay(Duration.ofMillis(ITL_MS)));

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-completions", "anthropic"})
    void ttftTpotAndTokensFollowTheServersContract(String api, @TempDir Path tmp) throws IOException {
        Map<String, String> env = api.equals("anthropic")
                ? Map.of("ANTHROPIC_API_BASE", server.baseUrl(), "ANTHROPIC_API_KEY", "k")
                : server.env();
        CliRun run = CliRun.of(env, "token-benchmark", "--model", "sim", "--llm-api", api,
                "--mean-input-tokens", "60", "--stddev-input-tokens", "0",
                "--mean-output-tokens", Integer.toString(OUTPUT_TOKENS), "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "4", "--num-concurrent-requests", "2", "--timeout", "60",
                "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        List<CSVRecord> rows = rows(tmp.resolve("sim_60_" + OUTPUT_TOKENS + "_requests.csv"));
        assertEquals(4, rows.size());
        for (CSVRecord row : rows) {
            assertEquals("", row.get("error_kind"), row::toString);
            double ttft = Double.parseDouble(row.get("ttft_s"));
            double e2e = Double.parseDouble(row.get("end_to_end_latency_s"));
            int tokens = Integer.parseInt(row.get("output_tokens_server"));
            assertEquals(OUTPUT_TOKENS, tokens, row::toString);
            assertTrue(Integer.parseInt(row.get("prompt_tokens_server")) > 0, row::toString);
            assertTrue(ttft >= TTFT_MS / 1e3 && ttft < TTFT_MS / 1e3 + 1.0, () -> "TTFT " + row);
            // the last token is due TTFT + (n - 1) x delay after the send: a bound no client lateness can break (a
            // late first token only shortens the spacing after it, so TPOT itself is not bounded below per request)
            double lastDue = (TTFT_MS + (tokens - 1) * ITL_MS) / 1e3;
            assertTrue(e2e >= lastDue && e2e < lastDue + 1.0, () -> "E2E " + row);
            double tpot = (e2e - ttft) / (tokens - 1);
            assertTrue(tpot > 0 && tpot < ITL_MS / 1e3 + 0.1, () -> "TPOT " + tpot + " " + row);
        }
        assertTrue(Files.exists(tmp.resolve("sim_60_" + OUTPUT_TOKENS + "_summary.json")));
    }

    private static List<CSVRecord> rows(Path csv) throws IOException {
        try (Reader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8);
             CSVParser parser = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build()
                     .parse(reader)) {
            return parser.getRecords();
        }
    }
}
