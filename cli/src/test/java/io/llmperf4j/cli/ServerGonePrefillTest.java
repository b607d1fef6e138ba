package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server on 127.0.0.1 killed during the first wave's prefill: it had sent 200 and its headers for every request
 * in flight, no token yet. Its headers were its answer, so the connections refused after it are the server going
 * away, in the summary's warning and in a sweep's verdict, and the level run after it found the server gone. Before
 * (the QA's sweep 2,4 against a ground-truth server killed 0.5 s into a 3 s TTFT), both read "configuration
 * (connection refused or 4xx)" and the first level "the service cannot hold it".
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerGonePrefillTest {
    private static final String WHEN = "before any request succeeded but after it had begun answering 4 requests";

    /** The run of {@code extra} against {@link ServerGoneFirstWaveTest.EndlessStreams#inPrefill()}, killed at 4. */
    private static CliRun killedInPrefill(Path dir, String... extra) throws Exception {
        try (ServerGoneFirstWaveTest.EndlessStreams server = ServerGoneFirstWaveTest.EndlessStreams.inPrefill()) {
            List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens",
                    "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "200", "--stddev-output-tokens", "0",
                    "--no-client-warmup", "--no-server-metrics", "--max-num-completed-requests", "12",
                    "--results-dir", dir.toString()));
            args.addAll(List.of(extra));
            CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.of(
                    Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), args.toArray(String[]::new)));
            // the pre-run check's request, then the run's first four, answered with headers and nothing else
            while (server.streaming.get() < 4 && !run.isDone()) Thread.sleep(5);
            server.kill();
            return run.get(150, TimeUnit.SECONDS);
        }
    }

    @Test
    void refusedAfterHeadersWithoutATokenIsTheServerGoingAway(@TempDir Path dir) throws Exception {
        CliRun run = killedInPrefill(dir, "--num-concurrent-requests", "4");
        JsonNode summary = RunFolder.summary(dir);
        assertEquals(0, summary.at("/run/requests_succeeded").asInt(), run::toString);
        assertEquals(4, summary.at("/errors/by_kind/CONNECTION_CLOSED").asInt(), summary.get("errors")::toString);
        assertEquals(8, summary.at("/errors/by_kind/CONNECT_FAILED").asInt(), summary.get("errors")::toString);
        String warning = RunFolder.warning(summary, "REQUESTS_FAILED");
        assertTrue(warning != null && warning.contains("8 point at the server going away: the server stopped "
                + "accepting connections at ") && warning.contains(WHEN), () -> warning + "\n" + run);
        assertFalse(warning.contains("configuration"), warning);
        // the console's warning is the summary's
        assertTrue((run.out() + run.err()).contains(WHEN), run::toString);
        assertFalse((run.out() + run.err()).contains("point at the configuration"), run::toString);
    }

    @Test
    void theSweepSaysTheServerWentAwayAndTheNextLevelFoundItGone(@TempDir Path dir) throws Exception {
        CliRun run = killedInPrefill(dir, "--concurrency-sweep", "4,8", "--sleep-between", "0");
        String killed = "4 capacity (429, 408, 5xx, timeouts, dropped connections,"
                + " error events after tokens), 8 server unavailable (connections "
                + "refused " + WHEN + ": restart, crash)";
        List<String> expected = List.of(
                "saturation point: not judged (no level could be judged)",
                "TTFT red line: not judged (no level could be judged)",
                "first level with failures: concurrency 4 (12 of 12 failed: " + killed + "): the server went away "
                        + "during it, not a limit of the service's capacity",
                "not judged: concurrency 4: every request failed (12 of 12: " + killed + "); its failure rate is "
                        + "recorded, its performance numbers are empty",
                "not judged: concurrency 8: every request failed (12 of 12: 12 server unavailable (connections "
                        + "refused: the server was gone since concurrency 4: restart, crash)); its failure rate is "
                        + "recorded, its performance numbers are empty");
        List<String> lines = run.out().lines().toList();
        for (String line : expected) assertTrue(lines.contains(line), () -> line + "\n" + run);
        assertFalse(run.out().contains("configuration (connection refused or 4xx)"), run::toString);
        assertFalse(run.out().contains("cannot hold"), run::toString);

        JsonNode sweep = RunFolder.sweep(dir);
        List<String> fileLines = new ArrayList<>();
        sweep.at("/verdict/lines").forEach(l -> fileLines.add(l.asText()));
        assertEquals(expected, fileLines);
        // the page's header says what its lines say
        String page = Files.readString(dir.resolve("m_40_200_report.html"));
        assertTrue(page.contains("<strong>Saturation point:</strong> not judged</li>"), page);
        assertTrue(page.contains("<strong>TTFT red line:</strong> not judged</li>"), page);
        assertTrue(page.contains("concurrency 4</span> (the server went away during it, not a limit of the "
                + "service&#39;s capacity)</li>"), page);
        assertFalse(page.contains("not reached") || page.contains("cannot hold"), page);
    }
}
