package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --connection-mode} end to end: by default the connections are opened before the clock (one per slot,
 * reported in the summary's connections section) and no measured request pays a connect; llmperf's per-request mode
 * puts a connect in every request; a bad mode is one line and exit 2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectionModeCommandTest {
    private static final int CONCURRENCY = 3;
    private static final int REQUESTS = 9;

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(1)));

    @Test
    void byDefaultConnectionsOpenBeforeTheClockAndNoRequestPaysAConnect(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp);
        assertEquals(0, run.exitCode(), run::toString);
        for (CSVRecord row : rows(tmp)) {
            assertEquals("", row.get("connect_s"), row::toString);
            assertEquals("reused", row.get("connection"), row::toString);
        }
        JsonNode connections = summary(tmp).get("connections");
        assertEquals(CONCURRENCY, connections.get("preconnected").asInt(), connections::toString);
        assertEquals(0, connections.get("new_connections").asInt(), connections::toString);
        assertTrue(connections.get("preconnect_p50_ms").asDouble() > 0, connections::toString);
    }

    @Test
    void perRequestOpensANewConnectionForEveryRequest(@TempDir Path tmp) throws IOException {
        CliRun run = run(tmp, "--connection-mode", "per-request");
        assertEquals(0, run.exitCode(), run::toString);
        List<CSVRecord> rows = rows(tmp);
        assertEquals(REQUESTS, rows.size());
        for (CSVRecord row : rows) {
            assertFalse(row.get("connect_s").isEmpty(), row::toString);
            assertEquals("new", row.get("connection"), row::toString);
        }
        JsonNode connections = summary(tmp).get("connections");
        assertEquals(0, connections.get("preconnected").asInt(), connections::toString);
        assertEquals(REQUESTS, connections.get("new_connections").asInt(), connections::toString);
    }

    @Test
    void anUnknownModeIsOneLineAndExitTwo(@TempDir Path tmp) {
        run(tmp, "--connection-mode", "sometimes").assertOneErrorLine(2, "'sometimes' is not a connection mode");
    }

    private static CliRun run(Path dir, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "sim",
                "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "5",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", Integer.toString(REQUESTS),
                "--num-concurrent-requests", Integer.toString(CONCURRENCY), "--no-client-warmup",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(server.env(),
                args.toArray(String[]::new));
    }

    private static List<CSVRecord> rows(Path dir) throws IOException {
        try (Reader r = Files.newBufferedReader(dir.resolve("sim_40_5_requests.csv"), StandardCharsets.UTF_8);
             CSVParser p = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(r)) {
            return p.getRecords();
        }
    }

    private static JsonNode summary(Path dir) throws IOException {
        return new ObjectMapper().readTree(dir.resolve("sim_40_5_llmperf4j_summary.json").toFile());
    }
}
