package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An open loop's per-request files carry the client's own delay after the send stamp beside the send lag
 * ({@code client_delay_nanos} in {@code requests.jsonl}, {@code client_delay_s} in the CSV), so that they add up to
 * the send lag the console and {@code <base>_open_loop.json} count (to when each request left the client): the
 * largest {@code send_lag_nanos + client_delay_nanos} is the file's send lag max, and their mean its mean. Against
 * the simulator on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientDelayColumnsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theFilesSendLagPlusClientDelayIsTheConsolesSendLag(@TempDir Path dir) throws Exception {
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--max-num-completed-requests", "12",
                    "--request-rate", "40", "--arrival", "constant", "--no-server-metrics", "--no-client-warmup",
                    "--results-dir", dir.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);

        List<String> lines = Files.readAllLines(dir.resolve("requests.jsonl"), StandardCharsets.UTF_8);
        assertEquals(12, lines.size());
        Map<String, Long> lagToLeaving = new HashMap<>();
        long max = Long.MIN_VALUE;
        long sum = 0;
        for (String line : lines) {
            JsonNode r = JSON.readTree(line);
            assertTrue(r.path("send_lag_nanos").isIntegralNumber(), line);
            assertTrue(r.path("client_delay_nanos").isIntegralNumber(), line);
            long delay = r.get("client_delay_nanos").asLong();
            assertTrue(delay >= 0, line);
            long leaving = r.get("send_lag_nanos").asLong() + delay;
            lagToLeaving.put(r.get("client_request_id").asText(), leaving);
            max = Math.max(max, leaving);
            sum += leaving;
        }
        JsonNode sendLag = JSON.readTree(RunFolder.file(dir, "_open_loop.json").toFile()).get("send_lag_ms");
        assertEquals(12, sendLag.get("count").asLong(), sendLag::toString);
        assertEquals(max / 1e6, sendLag.get("max").asDouble(), 1e-9, sendLag::toString);
        assertEquals(sum / 12.0 / 1e6, sendLag.get("mean").asDouble(), 1e-6, sendLag::toString);

        // the CSV's columns say the same, to the nanosecond
        List<CSVRecord> rows = RunFolder.csv(dir);
        assertEquals(12, rows.size());
        List<String> header = rows.get(0).getParser().getHeaderNames();
        assertEquals("client_delay_s", header.get(header.size() - 1), header::toString);
        for (CSVRecord row : rows) {
            long leaving = nanos(row.get("send_lag_s")) + nanos(row.get("client_delay_s"));
            assertEquals(lagToLeaving.get(row.get("client_request_id")), leaving, row::toString);
        }
    }

    private static long nanos(String seconds) {
        return new BigDecimal(seconds).movePointRight(9).longValueExact();
    }
}
