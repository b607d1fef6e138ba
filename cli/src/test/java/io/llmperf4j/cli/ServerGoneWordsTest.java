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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One culprit, the same words everywhere: a server killed during the first wave (no success yet, but it had begun
 * answering) and one killed mid-run, each worded on the run's page and in the sweep's verdict (console and sweep page)
 * as the summary's REQUESTS_FAILED warning words it, from the same reading ({@code ServerGone}). Before, the page and
 * the verdict said "after successes" for both. The servers are {@link ServerGoneFirstWaveTest}'s and
 * {@link ServerGoneMidRunTest}'s, on 127.0.0.1.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerGoneWordsTest {
    private static final String FIRST_WAVE = "before any request succeeded but after it had begun answering 4 requests";
    /** The summary's warning: its count of refused requests and the time of the first (UTC). */
    private static final Pattern WARNED_FIRST_WAVE = Pattern.compile("(\\d+) point at the server going away: the "
            + "server stopped accepting connections at (\\d\\d:\\d\\d:\\d\\d) UTC, " + FIRST_WAVE);
    private static final Pattern WARNED_MID_RUN = Pattern.compile("(\\d+) point at the server going away: the "
            + "server stopped accepting connections after (\\d+) successes at (\\d\\d:\\d\\d:\\d\\d) UTC");

    /** The first-wave run of {@link ServerGoneFirstWaveTest}, with {@code extra} arguments. */
    private static CliRun firstWave(Path dir, String... extra) throws Exception {
        try (ServerGoneFirstWaveTest.EndlessStreams server = new ServerGoneFirstWaveTest.EndlessStreams()) {
            List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens",
                    "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "200", "--stddev-output-tokens", "0",
                    "--no-client-warmup", "--no-server-metrics", "--max-num-completed-requests", "12",
                    "--results-dir", dir.toString()));
            args.addAll(List.of(extra));
            CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.of(
                    Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), args.toArray(String[]::new)));
            // the pre-run check's request, then the run's first four, whose streams never end
            while (server.streaming.get() < 4 && !run.isDone()) Thread.sleep(5);
            server.kill();
            return run.get(100, TimeUnit.SECONDS);
        }
    }

    @Test
    void killedDuringTheFirstWaveThePageSaysBeforeAnySuccessAsTheWarningDoes(@TempDir Path dir) throws Exception {
        CliRun run = firstWave(dir, "--num-concurrent-requests", "4");
        JsonNode summary = RunFolder.summary(dir);
        String warning = RunFolder.warning(summary, "REQUESTS_FAILED");
        assertTrue(warning != null, run::toString);
        Matcher warned = WARNED_FIRST_WAVE.matcher(warning);
        assertTrue(warned.find(), warning);
        String page = Files.readString(dir.resolve("m_40_200_report.html"));
        assertTrue(page.contains(warned.group(1) + " point at the server going away (connections refused "
                + FIRST_WAVE + " (the first sent at " + warned.group(2) + " UTC): a restart, a crash, an "
                + "out-of-memory kill): the URL is right; check the server&#39;s logs."), errors(page));
        assertTrue(page.contains("<td class=\"mono\">CONNECT_FAILED (before any success, after answering)</td>"),
                errors(page));
        assertFalse(page.contains("after successes"), errors(page));
        assertFalse(page.contains("had succeeded"), errors(page));
    }

    @Test
    void killedDuringTheFirstWaveTheSweepVerdictSaysBeforeAnySuccess(@TempDir Path dir) throws Exception {
        CliRun run = firstWave(dir, "--concurrency-sweep", "4");
        String words = "8 server unavailable (connections refused " + FIRST_WAVE + ": restart, crash)";
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("first level with failures: concurrency 4 (12 of 12 "
                + "failed: ") && l.contains(words)), run::toString);
        assertFalse(run.out().contains("after successes"), run::toString);
        String sweepPage = Files.readString(dir.resolve("m_40_200_report.html"));
        assertTrue(sweepPage.contains(words), verdict(sweepPage));
        assertFalse(sweepPage.contains("after successes"), verdict(sweepPage));
    }

    @Test
    void killedMidRunThePageSaysAfterHowManySuccessesAndWhenAsTheWarningDoes(@TempDir Path dir) throws Exception {
        // the pre-run check's request, then 10 of the run's, one at a time
        CliRun run = ServerGoneMidRunTest.runStoppingTheServer(n -> n >= 11, "--max-num-completed-requests", "40",
                "--num-concurrent-requests", "1", "--results-dir", dir.toString());
        String warning = RunFolder.warning(RunFolder.summary(dir), "REQUESTS_FAILED");
        assertTrue(warning != null, run::toString);
        Matcher warned = WARNED_MID_RUN.matcher(warning);
        assertTrue(warned.find(), warning);
        String page = Files.readString(dir.resolve("m_40_10_report.html"));
        assertTrue(page.contains(warned.group(1) + " point at the server going away (connections refused after "
                + "requests of this run had succeeded (the first sent at " + warned.group(3) + " UTC, after "
                + warned.group(2) + " successes): a restart, a crash, an out-of-memory kill): the URL is right; "
                + "check the server&#39;s logs."), errors(page));
        assertTrue(page.contains("<td class=\"mono\">CONNECT_FAILED (after successes)</td>"), errors(page));
        assertFalse(page.contains("before any success") || page.contains("before any request"), errors(page));
    }

    @Test
    void killedMidRunTheSweepVerdictSaysAfterSuccesses(@TempDir Path dir) throws Exception {
        // level 1: the check, then 12 requests; level 2 loses its server after 5 of its own
        CliRun run = ServerGoneMidRunTest.runStoppingTheServer(n -> n >= 18, "--concurrency-sweep", "1,2",
                "--max-num-completed-requests", "12", "--sleep-between", "0", "--results-dir", dir.toString());
        String words = " server unavailable (connections refused after successes: restart, crash)";
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("first level with failures: concurrency 2 (")
                && l.contains(words)), run::toString);
        assertFalse(run.out().contains("before any request"), run::toString);
        String sweepPage = Files.readString(dir.resolve("m_40_10_report.html"));
        assertTrue(sweepPage.contains(words), verdict(sweepPage));
    }

    /** A run page's Errors section, for a failure's message. */
    private static String errors(String page) {
        return page.substring(Math.max(0, page.indexOf("<section id=\"errors\">")));
    }

    /** A sweep page's verdict section, for a failure's message. */
    private static String verdict(String page) {
        int from = Math.max(0, page.indexOf("<section id=\"sweep\">"));
        return page.substring(from, Math.min(page.length(), from + 4000));
    }
}
