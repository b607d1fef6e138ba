package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An open loop that falls behind its schedule, against the simulator on 127.0.0.1: one sequence at a time of ~120 ms
 * (20 ms to the first token, 20 tokens of 5 ms; the server's one slot, later requests queued inside it) carries
 * under 10 req/s, and 40 req/s are offered, sent on time (no client cap: a cap that held the sends would be the
 * cap's, AtCapCommandTest). A CI job reading
 * the summary's warnings sees BEHIND_SCHEDULE with the figures (before, only the console's rates and the page showed
 * it), and the rate sweep's files carry each level's achieved share, the figure its verdict judges.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BehindScheduleTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final Pattern MESSAGE = Pattern.compile("The open loop fell behind its schedule: its successes "
            + "ended at about ([0-9.]+) req/s against ([0-9.]+) req/s scheduled \\(([0-9.]+) %, 95 % interval "
            + "([0-9.]+)-([0-9.]+) %, below 95\\.0 % = 100 - --saturation-gain; sent ([0-9.]+) req/s\\): ");

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(20))
            .interTokenDelay(Duration.ofMillis(5)).maxConcurrentSequences(1));

    private static CliRun run(Path dir, String... load) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "20",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "12", "--arrival", "constant",
                "--no-server-metrics", "--results-dir", dir.toString()));
        args.addAll(List.of(load));
        return CliRun.of(server.env(), args.toArray(String[]::new));
    }

    @Test
    void theSummaryWarnsWithTheFigures(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, "--request-rate", "40");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = JSON.readTree(dir.resolve("m_40_20_llmperf4j_summary.json").toFile());
        JsonNode warning = null;
        for (JsonNode w : summary.get("warnings")) {
            if ("BEHIND_SCHEDULE".equals(w.get("code").asText())) warning = w;
        }
        assertTrue(warning != null, summary.get("warnings")::toString);
        Matcher m = MESSAGE.matcher(warning.get("message").asText());
        assertTrue(m.find(), warning::toString);
        double completed = Double.parseDouble(m.group(1));
        assertEquals(40.0, Double.parseDouble(m.group(2)));
        // the rate served is the share of the scheduled rate; the share's whole interval lies under the 95 % the
        // rule allows (one sequence of ~120 ms at a time)
        double share = Double.parseDouble(m.group(3));
        assertEquals(share / 100 * 40, completed, 0.03, warning::toString); // the share printed to 0.1 %
        assertTrue(Double.parseDouble(m.group(4)) <= share && share <= Double.parseDouble(m.group(5)),
                warning::toString);
        assertTrue(Double.parseDouble(m.group(5)) < 95, warning::toString);
        JsonNode open = JSON.readTree(dir.resolve("m_40_20_open_loop.json").toFile());
        assertEquals(open.get("achieved_send_requests_per_s").asDouble(), Double.parseDouble(m.group(6)), 0.005,
                open::toString);
        assertTrue(run.out().contains("[BEHIND_SCHEDULE] The open loop fell behind its schedule"), run::toString);
        assertTrue(run.out().contains("\nKept up: no: its successes ended at " + m.group(3) + " % of the scheduled "
                + "rate, 95 % interval " + m.group(4) + "-" + m.group(5) + " %, all of it below the threshold 95.0 % "
                + "(BEHIND_SCHEDULE)\n"), run::toString);
    }

    @Test
    void theRateSweepsFilesCarryEachLevelsAchievedShare(@TempDir Path dir) throws Exception {
        CliRun run = run(dir, "--rate-sweep", "20,40", "--sleep-between", "0");
        assertEquals(0, run.exitCode(), run::toString);
        Path json = Files.list(dir).filter(p -> p.toString().endsWith("_sweep.json")).findFirst().orElseThrow();
        JsonNode sweep = JSON.readTree(json.toFile());
        List<String> csv = Files.readAllLines(Path.of(json.toString().replace("_sweep.json", "_sweep.csv")));
        assertTrue(csv.get(0).contains(",good_fraction,achieved_share,achieved_share_low,achieved_share_high,kept_up,"
                + "held_output_tok_s,server_generation_tok_s,"),
                csv.get(0));
        List<String> header = List.of(csv.get(0).split(",", -1));
        for (int i = 0; i < 2; i++) {
            JsonNode level = sweep.get("levels").get(i);
            double share = level.get("achieved_share").asDouble();
            assertTrue(share > 0 && share < 0.95, level::toString);
            // the verdict judged this share: each level is behind, so the first is the saturation point
            assertEquals(i == 0, level.get("saturation_point").asBoolean(), level::toString);
            String[] cells = csv.get(i + 1).split(",", -1);
            assertEquals(share, Double.parseDouble(cells[header.indexOf("achieved_share")]), 1e-9, csv.get(i + 1));
            // behind with confidence: the share's whole interval under the threshold
            assertEquals("no", level.get("kept_up").asText(), level::toString);
            assertEquals("no", cells[header.indexOf("kept_up")], csv.get(i + 1));
            assertEquals("", cells[header.indexOf("held_output_tok_s")], "held_output_tok_s: a closed loop's only");
            assertTrue(level.get("achieved_share_high").asDouble() < 0.95, level::toString);
            assertTrue(level.get("warnings").toString().contains("BEHIND_SCHEDULE"), level::toString);
        }
    }
}
