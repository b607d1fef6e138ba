package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.cli.FastSimulator.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sessions block's hit rate and prompt tokens count a trace's requests without a session beside the sessions'
 * turns, while its sessions and by_turn count sessions only: the console line and the JSON say so (the sessions QA's
 * run3). Against the simulator on 127.0.0.1, whose prefix cache reports cached tokens.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionsBlockScopeTest {

    @Test
    void aTracesSingleRequestsAreNamedInTheHitRatesScope(@TempDir Path tmp) throws Exception {
        // sessions a (0 ms) and b (100 ms), 2 turns each; single requests at 50, 150 and 250 ms
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 100, "output_length": 5, "session_id": "a"}
                {"timestamp": 50, "input_length": 100, "output_length": 5}
                {"timestamp": 100, "input_length": 100, "output_length": 5, "session_id": "b"}
                {"timestamp": 150, "input_length": 100, "output_length": 5}
                {"timestamp": 200, "input_length": 100, "output_length": 5, "session_id": "a", "delay": 50}
                {"timestamp": 250, "input_length": 100, "output_length": 5}
                {"timestamp": 300, "input_length": 100, "output_length": 5, "session_id": "b", "delay": 50}
                """);
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode sessions = RunFolder.summary(out).get("sessions");
        assertEquals(2, sessions.get("sessions").asInt(), sessions::toString);
        assertEquals(3, sessions.get("single_requests").asInt(), sessions::toString);
        assertTrue(sessions.get("prefix_cache_hit_rate").isNumber(), sessions::toString);
        assertTrue(run.out().contains(" prompt tokens of the successful requests, 3 single requests without a session "
                + "included)"), run::toString);
        assertTrue(run.out().contains("Sessions: 2 sessions, mean TTFT by turn "), run::toString);
        assertTrue(run.out().contains("; 2 completed, 0 cut (a failed turn, the run's end or a stop); 2.00 turns each "
                + "on average, session duration p50 "), run::toString);
    }
}
