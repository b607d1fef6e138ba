package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep's --slo verdict per level and its answer (console table, _sweep.json and .csv, the page), and --slo-exit,
 * against the simulator serving one sequence at a time: TTFT about 25 ms at concurrency 1, and at concurrency 4 three
 * requests' whole answers (about 75 ms each) queued before it, so about 250 ms. The bound, TTFT p50 &lt;= 150 ms,
 * lies far from both, so a slow shared machine cannot flip a verdict (it only adds latency: concurrency 1's median
 * would need 125 ms more, concurrency 4's cannot fall).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SweepSloTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "m_100_10";

    private static SimulatedServer oneSlot() {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(25))
                .interTokenDelay(Duration.ofMillis(5)).maxConcurrentSequences(1).build());
    }

    private static CliRun run(SimulatedServer server, Path dir, int requests, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--mean-input-tokens", "100", "--stddev-input-tokens", "0",
                "--mean-output-tokens", "10", "--stddev-output-tokens", "0", "--no-client-warmup",
                "--max-num-completed-requests", Integer.toString(requests), "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"),
                args.toArray(String[]::new));
    }

    private static String lastLine(String text) {
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        return lines.get(lines.size() - 1);
    }

    @Test
    void eachLevelIsJudgedAndTheSweepSaysUpToWhichLevelTheSloHeld(@TempDir Path dir) throws IOException {
        CliRun run;
        try (SimulatedServer server = oneSlot()) {
            // 30 requests a level, the fewest an objective resolves with
            run = run(server, dir, 30, "--concurrency-sweep", "1,4", "--sleep-between", "0",
                    "--slo", "ttft_p50<=150ms", "--slo-exit");
        }
        // every file is written, then the exit code says the SLO was missed, and the last line where
        assertEquals(3, run.exitCode(), run::toString);
        assertEquals("llmperf4j: --slo-exit: SLO missed at concurrency 4 (ttft_p50<=150ms): exit code 3",
                lastLine(run.err()), run::toString);

        // the table's goodput (a TTFT objective is a latency bound) and SLO columns, then the answer after the verdict
        assertTrue(Pattern.compile("E2E p90 ms  goodput req/s +good  SLO\n").matcher(run.out()).find(),
                run::toString);
        assertTrue(Pattern.compile("(?m)^ +1 .* met( +knee)?$").matcher(run.out()).find(), run::toString);
        assertTrue(Pattern.compile("(?m)^ +4 .* missed( +.*)?$").matcher(run.out()).find(), run::toString);
        assertTrue(run.out().contains("\nSLO met up to concurrency 1; missed at 4\n"
                + "  concurrency 4 missed ttft_p50<=150ms\n"), run::toString);

        // _sweep.json: each level's verdict is its summary's, and the sweep's answer
        JsonNode sweep = JSON.readTree(dir.resolve(BASE + "_sweep.json").toFile());
        JsonNode slo = sweep.get("slo");
        assertEquals("[\"ttft_p50<=150ms\"]", slo.get("objectives").toString());
        assertFalse(slo.get("passed").asBoolean(), slo::toString);
        assertEquals(1.0, slo.get("met_up_to").asDouble());
        assertEquals(4.0, slo.get("first_missed").asDouble());
        assertEquals("[4.0]", slo.get("missed_levels").toString());
        assertEquals("SLO met up to concurrency 1; missed at 4", slo.get("answer").asText());
        String[] status = {"met", "missed"};
        for (int i = 0; i < 2; i++) {
            JsonNode level = sweep.get("levels").get(i);
            JsonNode own = RunFolder.summary(dir.resolve(level.get("results_dir").asText())).get("slo");
            assertEquals(status[i], level.get("slo").get("status").asText(), level::toString);
            assertEquals(own.get("passed").asBoolean(), status[i].equals("met"), own::toString);
            assertEquals(own.get("resolved").asBoolean(), level.get("slo").get("resolved").asBoolean());
            assertTrue(level.get("slo").get("resolved").asBoolean(), "30 requests, far from the bound: " + level);
            assertEquals(30, level.get("slo").get("requests").asInt());
        }
        assertEquals("[\"ttft_p50<=150ms\"]", sweep.get("levels").get(1).get("slo").get("missed").toString());
        try (Reader in = Files.newBufferedReader(dir.resolve(BASE + "_sweep.csv"))) {
            List<CSVRecord> rows = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(in)
                    .getRecords();
            assertEquals(List.of("met", "missed"), rows.stream().map(r -> r.get("slo")).toList());
        }

        // the page says it, rebuilt from the files as `report DIR` builds it
        Path page = dir.resolve(BASE + "_report.html");
        Files.delete(page);
        CliRun rebuilt = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, rebuilt.exitCode(), rebuilt::toString);
        String html = Files.readString(page);
        assertTrue(html.contains("<li class=\"verdict-slo slo-fail\"><strong>SLO met up to concurrency 1; missed at "
                + "4</strong> (objectives: ttft_p50&lt;=150ms)</li>"), html);
        assertTrue(html.contains("<td data-slo=\"met\"><span class=\"flag slo-met\">met</span></td>"), html);
        assertTrue(html.contains("<td data-slo=\"missed\" title=\"missed: ttft_p50&lt;=150ms\"><span class=\"flag "
                + "slo-missed\">missed</span></td>"), html);
    }

    @Test
    void aPlainRunExits3OnlyWhenItsVerdictFailsAnUnresolvedOneByItsEstimate(@TempDir Path dir) {
        CliRun met;
        CliRun missed;
        CliRun without;
        CliRun models;
        try (SimulatedServer server = oneSlot()) {
            met = run(server, dir.resolve("met"), 10, "--slo", "ttft_p50<=20s", "--slo-exit");
            // 10 requests are too few to resolve anything: the estimate (about 25 ms) decides
            missed = run(server, dir.resolve("missed"), 10, "--slo", "ttft_p50<=5ms,e2e_p50<=20s", "--slo-exit");
            without = run(server, dir.resolve("without"), 10, "--slo", "ttft_p50<=5ms");
            models = run(server, dir.resolve("models"), 4, "--model", "m,n", "--sleep-between", "0",
                    "--num-concurrent-requests", "1", "--slo", "ttft_p50<=5ms", "--slo-exit");
        }
        assertEquals(0, met.exitCode(), met::toString);
        assertEquals("llmperf4j: --slo-exit: SLO met", lastLine(met.err()), met::toString);
        assertEquals(3, missed.exitCode(), missed::toString);
        assertEquals("llmperf4j: --slo-exit: SLO missed (ttft_p50<=5ms; unresolved: 10 requests, fewer than the 30 "
                + "that resolve an objective, so judged by the estimates): exit code 3", lastLine(missed.err()),
                missed::toString);
        assertTrue(Files.isRegularFile(dir.resolve("missed").resolve(BASE + "_llmperf4j_summary.json")),
                "written before the exit");
        assertEquals(0, without.exitCode(), "the verdict alone leaves the exit code: " + without);
        assertFalse(without.err().contains("--slo-exit"), without::toString);
        // a comparison: any model that missed, named; its table has the SLO column
        assertEquals(3, models.exitCode(), models::toString);
        assertEquals("llmperf4j: --slo-exit: SLO missed by m (ttft_p50<=5ms; unresolved: 4 requests, fewer than the "
                + "30 that resolve an objective, so judged by the estimates), n (ttft_p50<=5ms; unresolved: 4 requests, "
                + "fewer than the 30 that resolve an objective, so judged by the estimates): exit code 3",
                lastLine(models.err()));
        assertTrue(Pattern.compile("(?m)^n .* missed \\(unresolved\\)$").matcher(models.out()).find(),
                models::toString);
    }

    @Test
    void sloExitNeedsAVerdictToFail() {
        Map<String, String> env = ClosedPort.env(ClosedPort.find());
        CliRun.of(env, "token-benchmark", "--model", "m", "--slo-exit").assertOneErrorLine(2,
                "--slo-exit needs --slo objectives, e.g. --slo 'ttft_p99<=500ms,error_rate<=1%'");
        CliRun.of(env, "token-benchmark", "--model", "m", "--slo", "ttft=500ms", "--slo-exit").assertOneErrorLine(2,
                "goodput bounds alone (ttft=500ms) give no verdict");
        CliRun.of(env, "token-benchmark", "--model", "m", "--slo", "ttft_p99<=500ms", "--search", "concurrency",
                "--slo-exit").assertOneErrorLine(2, "--slo-exit does not apply with --search");
        CliRun.of(env, "token-benchmark", "--model", "m", "--slo", "ttft_p99<=500ms", "--iterations", "2",
                "--slo-exit").assertOneErrorLine(2, "--slo-exit does not apply with --iterations");
    }
}
