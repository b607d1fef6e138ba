package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rate sweep of sessions (--turns) names its levels sessions/s in its files and on its page, as its console table
 * and the capacity search's files do: its JSON's and CSV's {@code load_unit} said req/s and its page "2 levels of
 * req/s", beside a console that said "rate (sessions/s)". The page still reads it as an open loop (latencies from
 * the intended send in the sweep file's columns). Against the simulator on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionSweepFilesUnitTest {

    @Test
    void aRateSweepOfSessionsFilesAndPageSaySessionsPerSecond(@TempDir Path dir) throws Exception {
        CliRun run = SessionSweepUnitTest.sweepOfSessions(dir);
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("\nrate (sessions/s)  ok/total  "), run::toString);
        JsonNode sweep = RunFolder.sweep(dir);
        assertEquals("sessions/s", sweep.get("load_unit").asText(), sweep::toString);
        for (JsonNode level : sweep.get("levels")) {
            assertEquals("sessions/s", level.get("load_unit").asText(), level::toString);
        }
        try (Reader r = Files.newBufferedReader(RunFolder.file(dir, "_sweep.csv"))) {
            List<CSVRecord> rows = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(r)
                    .getRecords();
            assertEquals(2, rows.size());
            for (CSVRecord row : rows) assertEquals("sessions/s", row.get("load_unit"), rows::toString);
        }
        Path page = dir.resolve("m_40_3_report.html");
        for (int pass = 0; pass < 2; pass++) { // as the run wrote it, then rebuilt from the folder alone
            String html = Files.readString(page);
            assertTrue(html.contains(" \u00b7 2 levels of sessions/s"), html);
            assertTrue(html.contains(">Load (sessions/s)<"), html);
            assertFalse(html.contains("levels of req/s") || html.contains("Load (req/s)"), html);
            assertTrue(html.contains("from the intended send (the sweep file&#39;s)")
                    || html.contains("from the intended send (the sweep file's)"), html); // still an open loop
            Files.delete(page);
            CliRun report = CliRun.of(Map.of(), "report", dir.toString());
            assertEquals(0, report.exitCode(), report::toString);
        }
    }
}
