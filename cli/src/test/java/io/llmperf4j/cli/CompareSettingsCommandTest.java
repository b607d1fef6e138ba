package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The settings that change TTFT by themselves, recorded in the summary's {@code settings} and named by compare as
 * differences: {@code --no-stream} (TTFT at the response's end), {@code --connection-mode per-request} (a connect in
 * every TTFT) and a warmup. Real runs against the embedded simulator, each against a default run.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CompareSettingsCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(2)));

    @TempDir
    static Path tmp;
    static Path plain;

    @BeforeAll
    static void runDefault() {
        plain = run("plain");
    }

    private static Path run(String name, String... extra) {
        Path dir = tmp.resolve(name);
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "10", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "6", "--num-concurrent-requests", "2", "--no-client-warmup",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        CliRun run = CliRun.of(server.env(), args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run::toString);
        return dir;
    }

    private static JsonNode settings(Path dir) throws IOException {
        return JSON.readTree(dir.resolve("m_40_10_llmperf4j_summary.json").toFile()).get("settings");
    }

    private static CliRun compare(Path candidate) {
        CliRun run = CliRun.of(java.util.Map.of(), "compare", plain.toString(), candidate.toString());
        assertEquals(0, run.exitCode(), run::toString);
        return run;
    }

    @Test
    void aDefaultRunRecordsStreamingAndPreconnect() throws IOException {
        JsonNode settings = settings(plain);
        assertTrue(settings.get("stream").asBoolean(), settings::toString);
        assertEquals("preconnect", settings.get("connection_mode").asText(), settings::toString);
        CliRun same = compare(plain);
        assertFalse(same.err().contains("differs:"), same::toString);
    }

    @Test
    void noStreamIsADifference() throws IOException {
        Path noStream = run("no-stream", "--no-stream");
        assertFalse(settings(noStream).get("stream").asBoolean());
        CliRun run = compare(noStream);
        assertTrue(run.err().contains("differs: streaming: streamed vs --no-stream"), run::toString);
    }

    @Test
    void connectionModeIsADifference() throws IOException {
        Path perRequest = run("per-request", "--connection-mode", "per-request");
        assertEquals("per-request", settings(perRequest).get("connection_mode").asText());
        CliRun run = compare(perRequest);
        assertTrue(run.err().contains("differs: connection mode: preconnect vs per-request"), run::toString);
    }

    @Test
    void warmupIsADifference() {
        Path warm = run("warmup", "--warmup-requests", "2");
        CliRun run = compare(warm);
        assertTrue(run.err().contains("differs: warmup: none vs 2 requests, excluded from every result"),
                run::toString);
        // its load reads "closed loop, concurrency 2" where the plain run's reads "concurrency 2": the same load
        assertEquals(1, run.err().lines().filter(l -> l.contains("differs: ")).count(), run::toString);
    }
}
