package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulator on 127.0.0.1 stopped mid-run, after some requests of the run succeeded: the refused connections that
 * follow are the server going away (a restart, a crash), not a configuration error, in the summary's REQUESTS_FAILED
 * warning (with the successes before and when), on the page and in a sweep's verdict, which counts them against the
 * service. Before, FailureCause called every CONNECT_FAILED the configuration's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerGoneMidRunTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final Pattern GONE = Pattern.compile("(\\d+) point at the server going away: the server stopped "
            + "accepting connections after (\\d+) successes at \\d\\d:\\d\\d:\\d\\d UTC \\(a restart, a crash, an "
            + "out-of-memory kill\\?\\); check its logs\\. The URL is right: requests to it had succeeded");

    /** Runs {@code args} against a simulator that is closed once {@code stopWhen} holds for its request count. */
    static CliRun runStoppingTheServer(IntPredicate stopWhen, String... args) throws Exception {
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(Duration.ofMillis(5)).build());
        try {
            List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens",
                    "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "10", "--stddev-output-tokens", "0",
                    "--no-client-warmup", "--no-server-metrics", "--connection-mode", "per-request"));
            all.addAll(List.of(args));
            CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.of(
                    Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), all.toArray(String[]::new)));
            while (!stopWhen.test((int) server.faultCounts().total()) && !run.isDone()) Thread.sleep(5);
            server.close(); // the server goes away: its port refuses connections from now on
            return run.get(100, TimeUnit.SECONDS);
        } finally {
            server.close();
        }
    }

    @Test
    void refusedAfterSuccessesIsTheServerGoingAwayInTheWarningAndOnThePage(@TempDir Path dir) throws Exception {
        // the pre-run check's request, then 10 of the run's
        CliRun run = runStoppingTheServer(n -> n >= 11, "--max-num-completed-requests", "40",
                "--num-concurrent-requests", "1", "--results-dir", dir.toString());
        JsonNode summary = JSON.readTree(dir.resolve("m_40_10_llmperf4j_summary.json").toFile());
        int succeeded = summary.at("/run/requests_succeeded").asInt();
        int refused = summary.at("/errors/by_kind/CONNECT_FAILED").asInt();
        assertTrue(succeeded >= 9 && refused > 0, run::toString);
        String warning = RunFolder.warning(summary, "REQUESTS_FAILED");
        assertTrue(warning != null, summary.get("warnings")::toString);
        Matcher gone = GONE.matcher(warning);
        assertTrue(gone.find(), warning);
        assertEquals(refused, Integer.parseInt(gone.group(1)), warning);
        // one request in flight at a time: every success had ended before the first refused request was sent
        assertEquals(succeeded, Integer.parseInt(gone.group(2)), warning);
        assertFalse(warning.startsWith("check the configuration"), warning);

        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, report.exitCode(), report::toString);
        String page = Files.readString(dir.resolve("m_40_10_report.html"));
        assertTrue(page.contains(refused + " point at the server going away (connections refused after requests of "
                + "this run had succeeded"), page);
        assertTrue(page.contains("<td class=\"mono\">CONNECT_FAILED (after successes)</td>"), page);
        assertFalse(page.contains("at the configuration"), page);
    }

    @Test
    void theSweepVerdictCountsThemAgainstTheService(@TempDir Path dir) throws Exception {
        // level 1: the check, then 12 requests; level 2 loses its server after 5 of its own
        CliRun run = runStoppingTheServer(n -> n >= 18, "--concurrency-sweep", "1,2",
                "--max-num-completed-requests", "12", "--sleep-between", "0", "--results-dir", dir.toString());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("first level with failures: concurrency 2 (")
                && l.contains(" server unavailable (connections refused after successes: restart, crash)")),
                run::toString);
        assertFalse(run.out().contains("failures: none that point at the service"), run::toString);
    }
}
