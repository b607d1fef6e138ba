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
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep with {@code --slo} latency bounds keeps each level's goodput in its own files: {@code levels[]} of
 * {@code <base>_sweep.json} and {@code <base>_sweep.csv} carry the level summary's {@code goodput.good_requests_per_s}
 * and {@code goodput.good_fraction} to the last digit, and the sweep page's table shows them; a sweep without
 * {@code --slo} has them null, empty and no column.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SweepGoodputTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "m_40_6";

    private static CliRun sweep(SimulatedServer server, Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                "--mean-output-tokens", "6", "--stddev-output-tokens", "0", "--no-client-warmup",
                "--max-num-completed-requests", "8", "--concurrency-sweep", "1,2", "--sleep-between", "0",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"),
                args.toArray(String[]::new));
    }

    private static SimulatedServer server() {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(3))
                .interTokenDelay(Duration.ofMillis(1)).build());
    }

    private static List<CSVRecord> csv(Path dir) throws IOException {
        try (Reader in = Files.newBufferedReader(dir.resolve(BASE + "_sweep.csv"))) {
            return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get().parse(in).getRecords();
        }
    }

    @Test
    void eachLevelsGoodputIsItsSummarysInTheSweepFilesAndPage(@TempDir Path dir) throws IOException {
        CliRun run;
        try (SimulatedServer server = server()) {
            run = sweep(server, dir, "--slo", "ttft=2s,tpot=1s");
        }
        assertEquals(0, run.exitCode(), run::toString);

        JsonNode levels = JSON.readTree(dir.resolve(BASE + "_sweep.json").toFile()).get("levels");
        List<CSVRecord> rows = csv(dir);
        assertEquals(2, levels.size());
        assertEquals(2, rows.size());
        Path page = dir.resolve(BASE + "_report.html");
        Files.delete(page); // rebuilt from the files, as `report DIR` builds it
        CliRun rebuilt = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, rebuilt.exitCode(), rebuilt::toString);
        String html = Files.readString(page);
        assertTrue(html.contains("<th class=\"num\">goodput req/s</th><th class=\"num\">good</th>"), html);

        for (int i = 0; i < 2; i++) {
            JsonNode row = levels.get(i);
            String level = "level " + row.get("level").asText();
            JsonNode goodput = RunFolder.summary(dir.resolve(row.get("results_dir").asText())).get("goodput");
            JsonNode perS = goodput.get("good_requests_per_s");
            JsonNode fraction = goodput.get("good_fraction");
            assertTrue(perS.isNumber() && fraction.isNumber(), goodput::toString);
            // the same JSON number text on both sides: bit-for-bit the same double
            assertEquals(perS, row.get("good_requests_per_s"), level);
            assertEquals(fraction, row.get("good_fraction"), level);
            assertEquals(perS.asDouble(), Double.parseDouble(rows.get(i).get("good_requests_per_s")), level);
            assertEquals(fraction.asDouble(), Double.parseDouble(rows.get(i).get("good_fraction")), level);
            assertTrue(html.contains("<td class=\"num\" data-metric=\"good_requests_per_s\">"
                    + String.format(Locale.ROOT, "%.2f", perS.asDouble()) + "</td>"
                    + "<td class=\"num\" data-metric=\"good_fraction\">"
                    + String.format(Locale.ROOT, "%.1f %%", 100 * fraction.asDouble()) + "</td>"), level);
        }
    }

    /** The console's sweep table rows, each split into its cells (two spaces or more apart), the header first. */
    private static List<List<String>> consoleTable(String out) {
        List<List<String>> rows = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith("concurrency ")) rows.add(List.of(line.split(" {2,}")));
            else if (!rows.isEmpty() && line.matches(" *\\d+ .*")) rows.add(List.of(line.strip().split(" {2,}")));
            else if (!rows.isEmpty()) break;
        }
        return rows;
    }

    @Test
    void theConsolesSweepTableShowsEachLevelsGoodputAsTheSweepFile(@TempDir Path dir) throws IOException {
        CliRun run;
        try (SimulatedServer server = server()) {
            run = sweep(server, dir, "--slo", "ttft=2s,tpot=1s");
        }
        assertEquals(0, run.exitCode(), run::toString);
        List<List<String>> table = consoleTable(run.out());
        assertEquals(3, table.size(), run::toString);
        List<String> head = table.get(0);
        int perS = head.indexOf("goodput req/s");
        int good = head.indexOf("good");
        assertEquals(head.indexOf("E2E p90 ms") + 1, perS, head::toString);
        assertEquals(perS + 1, good, head::toString);

        JsonNode levels = JSON.readTree(dir.resolve(BASE + "_sweep.json").toFile()).get("levels");
        for (int i = 0; i < 2; i++) {
            JsonNode level = levels.get(i);
            List<String> row = table.get(i + 1);
            assertEquals(level.get("level").asDouble(), Double.parseDouble(row.get(0)), row::toString);
            assertEquals(String.format(Locale.ROOT, "%.2f", level.get("good_requests_per_s").asDouble()),
                    row.get(perS), row::toString);
            assertEquals(String.format(Locale.ROOT, "%.1f%%", 100 * level.get("good_fraction").asDouble()),
                    row.get(good), row::toString);
        }
    }

    @Test
    void aSweepWithoutSloHasNoGoodput(@TempDir Path dir) throws IOException {
        CliRun run;
        try (SimulatedServer server = server()) {
            run = sweep(server, dir);
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.out().contains("goodput"), run::toString);
        assertEquals(3, consoleTable(run.out()).size(), run::toString);
        for (JsonNode row : JSON.readTree(dir.resolve(BASE + "_sweep.json").toFile()).get("levels")) {
            assertTrue(row.has("good_requests_per_s") && row.get("good_requests_per_s").isNull(), row::toString);
            assertTrue(row.has("good_fraction") && row.get("good_fraction").isNull(), row::toString);
            assertTrue(RunFolder.summary(dir.resolve(row.get("results_dir").asText())).path("goodput").isMissingNode()
                    || RunFolder.summary(dir.resolve(row.get("results_dir").asText())).get("goodput").isNull());
        }
        List<CSVRecord> rows = csv(dir);
        assertEquals(2, rows.size());
        for (CSVRecord r : rows) {
            assertEquals("", r.get("good_requests_per_s"), r::toString);
            assertEquals("", r.get("good_fraction"), r::toString);
        }
        String html = Files.readString(dir.resolve(BASE + "_report.html"));
        assertFalse(html.contains("goodput req/s"), "no goodput column without --slo");
        assertFalse(html.contains("data-metric=\"good_"), "no goodput cells without --slo");
    }
}
