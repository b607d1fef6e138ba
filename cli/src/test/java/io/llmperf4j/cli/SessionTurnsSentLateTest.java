package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.cli.FastSimulator.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's later turn is due at a time the client set (the previous reply's end plus its think time): goodput and
 * the SLO count its TTFT from its actual send, and a lag there is said apart (TURNS_SENT_LATE, console and summary),
 * against the simulator on 127.0.0.1. The lag is made by --max-concurrency 1: three sessions start 10 ms apart, and
 * every later turn is due while another request holds the one slot (each at least the simulator's 50 ms TTFT).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionTurnsSentLateTest {

    @Test
    void laterTurnsAreJudgedFromTheirActualSendAndTheirLagIsWarned(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(50)).interTokenDelay(Duration.ofMillis(1)).build())) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:2",
                    "--request-rate", "100", "--arrival", "constant", "--max-concurrency", "1",
                    "--max-num-completed-requests", "6", "--input-lengths", "fixed:30", "--output-lengths", "fixed:3",
                    "--slo", "ttft=100ms", "--no-client-warmup", "--no-server-metrics", "--results-dir",
                    out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        List<CSVRecord> rows = RunFolder.csv(out);
        assertEquals(6, rows.size());
        int good = 0;
        int laterTurnsLate = 0;
        for (CSVRecord r : rows) {
            boolean later = Integer.parseInt(r.get("turn")) > 0;
            double lag = Double.parseDouble(r.get("send_lag_s"));
            double ttft = Double.parseDouble(r.get("ttft_s"));
            if (later && lag > 0.010) laterTurnsLate++;
            // a first turn is the schedule's arrival: judged from its intended send; a later turn from its actual send
            if (r.get("error_kind").isEmpty() && (later ? 0 : lag) + ttft <= 0.100) good++;
        }
        assertEquals(3, laterTurnsLate, "each later turn waited behind the cap for a request of 50 ms or more");
        JsonNode summary = RunFolder.summary(out);
        assertEquals(good, summary.get("goodput").get("good_requests").asInt(), summary.get("goodput")::toString);
        JsonNode warning = null;
        for (JsonNode w : summary.get("warnings")) if (w.toString().contains("TURNS_SENT_LATE")) warning = w;
        assertTrue(warning != null, summary.get("warnings")::toString);
        assertTrue(warning.toString().contains("Sessions' turns sent late: 3 of 3 turns due at a time the client set"),
                warning::toString);
        assertTrue(run.out().contains("[TURNS_SENT_LATE] Sessions' turns sent late: 3 of 3 turns"), run::toString);
        assertTrue(run.out().contains("a turn due while the --max-concurrency 1 cap is full waits"), run::toString);
        // the open-loop block's cap, in the singular for one (it read "at most 1 requests in flight")
        assertTrue(run.out().contains(", at most 1 request in flight\n"), run::toString);
    }
}
