package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capacity search of sessions (--search rate with --turns) judges a level as the run judges it: a session's start
 * from its intended send, its later turns, due at a time the client set, from their actual send. The search judged
 * every turn from its intended send, so a later turn's lag (the client's pace) counted against the server there and
 * not in the run's goodput and --slo verdict. Against the simulator on 127.0.0.1, no prefix cache and 1 ms of prefill per prompt
 * token, so the later turns (their history resent) are the slowest and set the TTFT p99.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionSearchTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aRateLevelOfSessionsJudgesLaterTurnsFromTheirActualSendAsTheRunDoes(@TempDir Path dir) throws Exception {
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1))
                .prefillPerPromptToken(Duration.ofMillis(1)).prefixCacheBlocks(0).build())) {
            // one level: 4 sessions/s, 12 requests (4 sessions of 3 turns), an objective every level meets
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--turns", "3", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--max-num-completed-requests", "12",
                    "--slo", "ttft_p99<=30s",
                    "--search", "rate", "--arrival", "constant", "--search-min", "4", "--search-max", "4",
                    "--search-level-max", "12", "--search-no-repeat", "--results-dir", dir.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode doc = only(dir, "_search.json");
        JsonNode level = doc.get("levels").get(0);
        assertEquals(12, level.get("samples").asInt(), level::toString);
        assertSessionsPerSecond(dir, doc, run);
        // the level judged as the run judges it: a session's start (turn 0) from its intended send, TTFT plus its
        // send lag; a later turn from its actual send, its TTFT alone (the CSV has both to the nanosecond)
        List<CSVRecord> rows = RunFolder.csv(dir.resolve(level.get("results_dir").asText()));
        assertEquals(12, rows.size());
        double[] runsRule = rows.stream().mapToDouble(r -> nanos(r.get("ttft_s"))
                + (r.get("turn").equals("0") ? nanos(r.get("send_lag_s")) : 0)).sorted().toArray();
        double[] everyTurnFromIntended = rows.stream().mapToDouble(r -> nanos(r.get("ttft_s"))
                + nanos(r.get("send_lag_s"))).sorted().toArray();
        JsonNode objective = level.get("objectives").get(0);
        assertEquals("ttft_p99<=30000ms", objective.get("objective").asText(), level::toString);
        double estimate = objective.get("estimate").asDouble();
        assertEquals(Percentiles.ofSorted(runsRule, 99) / 1e6, estimate, 1e-9, level::toString);
        // the later turns (their history resent: the slowest, so they set the p99) went out after they were due:
        // the old rule, every turn from its intended send, gave another estimate
        assertNotEquals(Percentiles.ofSorted(everyTurnFromIntended, 99) / 1e6, estimate, rows::toString);
    }

    /**
     * A rate level of sessions starts sessions at its rate, as its own summary says ("open loop, 4 sessions/s"): the
     * search named that rate req/s in its table's header, its answer, its JSON's and CSV's unit and its page's axis,
     * beside a completed column of some three times as many requests (turns) a second. Its completions stay req/s.
     */
    private static void assertSessionsPerSecond(Path dir, JsonNode doc, CliRun run) throws IOException {
        assertEquals("sessions/s", doc.get("unit").asText(), doc::toString);
        assertEquals("open loop, constant session arrivals", doc.get("settings").get("load").asText());
        assertEquals(12, doc.get("levels").get(0).get("requests_completed").asInt(), doc::toString);
        String header = run.out().lines().filter(l -> l.startsWith("  #  phase")).findFirst().orElseThrow();
        assertTrue(header.contains("  rate (sessions/s)  scheduled   started  "), run::toString);
        assertTrue(header.contains("  completed req/s  "), run::toString);
        String verdict = doc.get("verdict").asText();
        assertTrue(verdict.startsWith("capacity above the range: every level up to rate 4 (--search-max) met the "
                + "objectives"), verdict);
        assertTrue(verdict.contains("; goodput at the capacity, rate 4 sessions/s: "), verdict);
        assertTrue(verdict.matches(".*: \\d+\\.\\d\\d req/s \\(TTFT <= 30000 ms\\).*"), verdict); // good turns a second
        assertTrue(run.out().contains(verdict), run::toString);
        assertFalse(run.out().contains("rate (req/s)") || run.out().contains("rate 4 req/s"), run::toString);
        try (Reader r = Files.newBufferedReader(RunFolder.file(dir, "_search.csv"))) {
            List<CSVRecord> csv = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(r)
                    .getRecords();
            assertEquals("sessions/s", csv.get(0).get("unit"), csv::toString);
        }
        // the level's own page names the search's level as the search does
        String levelPage = Files.readString(RunFolder.file(dir.resolve(doc.get("levels").get(0).get("results_dir")
                .asText()), "_report.html"));
        assertTrue(levelPage.contains("of a capacity search, rate 4 sessions/s: "), levelPage);
        String html = Files.readString(RunFolder.file(dir, "_search.html"));
        assertTrue(html.contains(">Load (sessions/s)<"), html);
        assertTrue(html.contains("<th>rate (sessions/s)</th><th>scheduled sessions/s</th><th>started sessions/s</th>"),
                html);
        assertTrue(html.contains("<th>completed req/s</th>"), html);
        assertFalse(html.contains("req/s)"), html);
    }

    /**
     * A level of sessions that sends more than the workload holds keeps starting sessions of its own, each with
     * prompts of its own: a rate level of 24 requests over a workload of 6 (two 3-turn sessions) sent 6 before (its
     * arrivals were cut to the workload's sessions), and a level limited by time played the workload's sessions
     * again ({@code s0~1}, the same prompts, which the server's prefix cache served) under a console line that called
     * them "a fixed set of 6 requests, sent in a loop".
     */
    @Test
    void aLevelThatSendsMoreThanTheWorkloadStartsFreshSessionsForItsWholeLimit(@TempDir Path dir) throws Exception {
        CliRun byCount;
        CliRun byTime;
        CliRun rateByTime;
        CliRun shared;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            byCount = CliRun.of(env, search(dir.resolve("count"), "rate", "20", "24"));
            byTime = CliRun.of(env, search(dir.resolve("time"), "concurrency", "2", "1s"));
            rateByTime = CliRun.of(env, search(dir.resolve("rate-time"), "rate", "10", "2s"));
            // sessions built to share a prefix are not drawn: they are started again, and the line says so
            shared = CliRun.of(env, Stream.concat(Stream.of(search(dir.resolve("shared"), "rate", "20", "24")),
                    Stream.of("--shared-prefix-groups", "1", "--prefix-tokens", "20")).toArray(String[]::new));
        }
        for (CliRun run : List.of(byCount, byTime, rateByTime, shared)) assertEquals(0, run.exitCode(), run::toString);

        JsonNode countLevel = only(dir.resolve("count"), "_search.json").get("levels").get(0);
        assertEquals(24, countLevel.get("samples").asInt(), countLevel::toString);
        Path countDir = dir.resolve("count").resolve(countLevel.get("results_dir").asText());
        List<JsonNode> sent = records(countDir);
        assertEquals(24, sent.size());
        assertFreshSessions(sent);
        // the arrivals scheduled are the sessions the budget started, none left "not sent"
        JsonNode openLoop = JSON.readTree(RunFolder.file(countDir, "_open_loop.json").toFile());
        assertEquals(sent.stream().map(r -> r.get("tags").get("session_id").asText()).distinct().count(),
                openLoop.get("arrivals_scheduled").asLong(), openLoop::toString);
        assertEquals(0, openLoop.get("arrivals_not_sent").asInt(), openLoop::toString);

        JsonNode timeLevel = only(dir.resolve("time"), "_search.json").get("levels").get(0);
        List<JsonNode> timed = records(dir.resolve("time").resolve(timeLevel.get("results_dir").asText()));
        assertTrue(timed.size() > 6, () -> timed.size() + " requests in 1 s");
        assertFreshSessions(timed);
        JsonNode rateLevel = only(dir.resolve("rate-time"), "_search.json").get("levels").get(0);
        assertFreshSessions(records(dir.resolve("rate-time").resolve(rateLevel.get("results_dir").asText())));
        // its progress counts requests (turns) with no total: its 20 arrivals are sessions, not the requests
        assertTrue(rateByTime.err().contains(" requests done, "), rateByTime::toString); // a line a second
        assertTrue(rateByTime.err().lines().filter(l -> l.contains(" requests done"))
                .noneMatch(l -> l.matches("llmperf4j: \\d+/\\d+ requests done.*")), rateByTime::toString);
        for (CliRun run : List.of(byCount, byTime, rateByTime)) {
            assertFalse(run.err().contains("sent in a loop"), run::toString);
            assertFalse(run.err().contains("started again"), run::toString);
        }

        assertTrue(shared.err().contains("llmperf4j: capacity search: the workload of sessions built to share "
                + "prefixes (--turns with --prefix-tokens or --shared-prefix-groups) holds 2 sessions (6 requests), "
                + "started again as new sessions (s0~1, ...) for as long as each level runs"), shared::toString);
        JsonNode sharedLevel = only(dir.resolve("shared"), "_search.json").get("levels").get(0);
        List<JsonNode> replayed = records(dir.resolve("shared").resolve(sharedLevel.get("results_dir").asText()));
        assertEquals(24, replayed.size());
        assertTrue(replayed.stream().anyMatch(r -> r.get("tags").get("session_id").asText().equals("s0~1")),
                replayed::toString);
    }

    /** A one-level search of 3-turn sessions over a workload of 6 requests, at {@code load}, for {@code limit}. */
    private static String[] search(Path dir, String mode, String load, String limit) {
        Stream<String> args = Stream.of("token-benchmark", "--model", "m", "--turns", "3", "--mean-input-tokens",
                "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "3", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "6", "--slo", "ttft_p99<=30s", "--search", mode, "--search-min", load,
                "--search-max", load, "--search-level-max", limit, "--search-no-repeat", "--no-server-metrics",
                "--results-dir", dir.toString());
        return (mode.equals("rate") ? Stream.concat(args, Stream.of("--arrival", "constant")) : args)
                .toArray(String[]::new);
    }

    /** Every session its own id (no replay's {@code ~k}) and every request a prompt of its own. */
    private static void assertFreshSessions(List<JsonNode> records) {
        List<String> ids = records.stream().map(r -> r.get("tags").get("session_id").asText()).toList();
        assertTrue(ids.stream().noneMatch(id -> id.contains("~")), ids::toString);
        assertTrue(ids.stream().distinct().count() > 2, ids::toString); // more than the workload's two sessions
        assertEquals(records.size(), records.stream().map(r -> r.get("prompt_index").asInt()).distinct().count(),
                ids::toString);
    }

    private static List<JsonNode> records(Path levelDir) throws IOException {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(levelDir.resolve("requests.jsonl"))) {
            if (!line.isBlank()) out.add(JSON.readTree(line));
        }
        return out;
    }

    /** A CSV duration in seconds (nine decimals) as nanoseconds; empty is 0. */
    private static long nanos(String seconds) {
        return seconds.isEmpty() ? 0 : new BigDecimal(seconds).movePointRight(9).longValueExact();
    }

    private static JsonNode only(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith(suffix)).toList();
            assertEquals(1, found.size(), found::toString);
            return JSON.readTree(found.get(0).toFile());
        }
    }
}
