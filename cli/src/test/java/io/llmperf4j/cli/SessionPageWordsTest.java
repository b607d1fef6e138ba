package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.llmperf4j.cli.FastSimulator.env;

/**
 * Against the simulator: the run's page says an open loop of sessions in the console's words (sessions/s, sessions
 * scheduled and started, requests as turns; a trace's sessions and single requests and the span of their starts),
 * as the run wrote it and as `report DIR` rebuilds it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionPageWordsTest {

    @Test
    void anOpenLoopOfSessionsIsDescribedInSessionsOnThePage(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            // 12 requests of 3 turns: 4 sessions
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--turns", "fixed:3", "--think-time",
                    "fixed:10", "--request-rate", "20", "--max-num-completed-requests", "12", "--no-client-warmup",
                    "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        String sessionsLine = line(run.out(), "Sessions: 4 scheduled");
        // the summary's load says sessions as the console and the page do (the run's seed appended)
        assertEquals("open loop, 20 sessions/s, poisson session arrivals, seed 11111",
                RunFolder.summary(out).get("settings").get("metadata").get("llmperf4j_load").asText());
        for (String page : RunFolder.writtenAndRebuiltPages(out)) {
            assertEquals("open loop, 20 sessions/s, poisson session arrivals (seed 11111)",
                    HtmlRows.value(page, "Load"));
            assertEquals("4", HtmlRows.value(page, "Sessions scheduled"));
            assertEquals(sessionsLine.substring("Sessions: ".length()), HtmlRows.value(page, "Sessions"));
            assertTrue(sessionsLine.contains("; 12 requests (turns) sent, 0 not sent;"), sessionsLine);
            assertFalse(page.contains(" req/s, poisson arrivals"), "not per-request words");
        }
    }

    @Test
    void aTraceOfSessionsAndSingleRequestsIsDescribedAsTheConsoleDescribesIt(@TempDir Path tmp) throws IOException {
        // sessions a (0 ms) and b (100 ms), 2 turns each; single requests at 50, 150 and 250 ms: 5 arrivals
        Path trace = MixedTrace.write(tmp);
        Path out = tmp.resolve("out");
        CliRun run;
        try (SimulatedServer server = FastSimulator.start()) {
            run = CliRun.of(env(server), "token-benchmark", "--model", "sim", "--trace", "mooncake:" + trace,
                    "--no-client-warmup", "--results-dir", out.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        String load = "trace replay of mooncake:" + trace + " (2 sessions (4 requests) and 3 single requests starting "
                + "over 0.25 s, speedup 1), mean 16 arrivals/s";
        assertTrue(run.err().contains("llmperf4j: load: " + load + "\n"), run::toString);
        // the sessions block's hit rate and prompt tokens count the single requests beside the sessions' turns, while
        // its sessions and by_turn count sessions only: the JSON and the console line say so (the sessions QA's run3)
        JsonNode sessions = RunFolder.summary(out).get("sessions");
        assertEquals(2, sessions.get("sessions").asInt(), sessions::toString);
        assertEquals(3, sessions.get("single_requests").asInt(), sessions::toString);
        assertTrue(sessions.get("prefix_cache_hit_rate").isNumber(), sessions::toString);
        assertTrue(run.out().contains(" prompt tokens of the successful requests, 3 single requests without a session "
                + "included)"), run::toString);
        assertTrue(run.out().contains("Sessions: 2 sessions, mean TTFT by turn "), run::toString);
        assertTrue(run.out().contains("; 2 completed, 0 cut (a failed turn, the run's end or a stop); 2.00 turns each "
                + "on average, session duration p50 "), run::toString);
        for (String page : RunFolder.writtenAndRebuiltPages(out)) {
            assertEquals(load, HtmlRows.value(page, "Load"));
            assertEquals("5", HtmlRows.value(page, "Arrivals scheduled"));
            assertEquals("5 scheduled, 5 started, 0 not started; 7 requests (turns) sent, 0 not sent; largest backlog "
                    + backlog(run.out()) + " (turns due but not yet sent)",
                    HtmlRows.value(page, "Sessions and single requests"));
            assertEquals(line(run.out(), "Sessions and single requests: ").substring(
                    "Sessions and single requests: ".length()), HtmlRows.value(page, "Sessions and single requests"));
        }
    }

    private static String line(String text, String start) {
        return text.lines().filter(l -> l.startsWith(start)).findFirst().orElseThrow(() -> new AssertionError(text));
    }

    private static String backlog(String out) {
        String l = line(out, "Sessions and single requests: ");
        return l.replaceAll(".*largest backlog (\\d+) .*", "$1");
    }

    /** The run's page as the run wrote it, then rebuilt from its folder as `report DIR` builds it. */
}
