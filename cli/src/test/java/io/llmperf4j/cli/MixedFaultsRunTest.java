package io.llmperf4j.cli;

import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 1,000 requests against a server that breaks a quarter of them in every way it knows: the run completes and every
 * request is accounted for, ok plus each failure kind equal to the total sent.
 */
class MixedFaultsRunTest {
    @Test
    void everyRequestIsAccountedFor(@TempDir Path dir) throws Exception {
        SimulatorConfig config = SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO)
                .faultPlan(FaultPlan.random(0.25, 7).withStallDuration(Duration.ofMillis(2500))) // 1 MiB events
                .build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--max-num-completed-requests", "1000",
                    "--num-concurrent-requests", "50", "--mean-input-tokens", "60", "--stddev-input-tokens", "10",
                    "--mean-output-tokens", "20", "--stddev-output-tokens", "5", "--idle-timeout", "1",
                    "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);

            List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(dir.resolve("m_60_20_requests.csv"));
            assertEquals(1000, rows.size());
            Map<String, Integer> byKind = new TreeMap<>();
            for (CSVRecord row : rows) {
                byKind.merge(row.get("error_kind").isEmpty() ? "OK" : row.get("error_kind"), 1, Integer::sum);
            }
            assertEquals(1000, byKind.values().stream().mapToInt(Integer::intValue).sum(), byKind::toString);
            // missing_done ends cleanly after the finish: a success with END_MARKER_MISSING, as llmperf records it
            for (String kind : List.of("OK", "HTTP_STATUS", "ERROR_IN_STREAM", "MALFORMED_EVENT",
                    "CONNECTION_CLOSED", "IDLE_TIMEOUT")) {
                assertTrue(byKind.getOrDefault(kind, 0) > 0, kind + " missing from " + byKind);
            }
            // statuses travel unchanged: each HTTP fault the server injected is one recorded failure with its code
            long httpInjected = 0;
            for (FaultKind kind : FaultKind.values()) {
                if (kind.isHttpStatus()) {
                    long recorded = rows.stream().filter(r -> r.get("error_kind").equals("HTTP_STATUS")
                            && r.get("error_code").equals(Integer.toString(kind.httpStatus()))).count();
                    assertEquals(server.faultCounts().count(kind), recorded, kind + " " + byKind);
                    httpInjected += recorded;
                }
            }
            assertEquals(httpInjected, (long) byKind.get("HTTP_STATUS"));
            // nothing is retried behind the user's back: the server saw exactly the requests that were recorded,
            // and the pre-run check's one (the first by arrival order: no fault for this seed)
            assertEquals(1001, server.faultCounts().total(), server.faultCounts() + " vs " + byKind);
            assertTrue(run.out().contains("Number Of Completed Requests: " + byKind.get("OK") + "\n"), run::toString);
            assertFalse(byKind.containsKey("MISSING_DONE"), byKind::toString);
            assertTrue(run.out().contains("[END_MARKER_MISSING] " + server.faultCounts().count(FaultKind.MISSING_DONE)
                    + " of " + byKind.get("OK") + " successful streams ended without data: [DONE]"), run::toString);
        }
    }
}
