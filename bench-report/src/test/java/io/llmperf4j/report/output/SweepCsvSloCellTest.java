package io.llmperf4j.report.output;

import io.llmperf4j.report.search.LevelSlo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The sweep CSV's {@code slo} cell says what the console's and the page's tables say: "met (unresolved)" when the
 * level's verdict rests on its estimates (the QA saw "met" in the CSV beside "met (unresolved)" in the table).
 */
class SweepCsvSloCellTest {

    private static SweepFiles.Level level(double level, LevelSlo slo) {
        return new SweepFiles.Level(level, "concurrency", "concurrency " + (int) level, 20, 20, 0, 0.0, 100.0, 5.0,
                100.0, 110.0, 400.0, 410.0, false, false, false, false, false, null, null, "concurrency_" + (int) level,
                slo, List.of());
    }

    @Test
    void theCsvSaysUnresolvedAsTheTablesDo(@TempDir Path dir) throws IOException {
        List<SweepFiles.Level> levels = List.of(
                level(1, new LevelSlo(LevelSlo.MET, false, 20, List.of(), List.of("ttft_p90<=300ms"))),
                level(2, new LevelSlo(LevelSlo.MISSED, true, 40, List.of("ttft_p90<=300ms"), List.of())),
                level(4, new LevelSlo(LevelSlo.NOT_JUDGED, null, null, List.of(), List.of())),
                level(8, null));
        SweepFiles.Document doc = new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency", "concurrency",
                List.of(1.0, 2.0, 4.0, 8.0), "concurrency sweep 1,2,4,8", "none", new SweepFiles.Rules(5, 3, 10),
                new SweepFiles.Verdict(null, null, null, List.of(), List.of()), false, levels);
        SweepFiles.write(dir, "m", doc);
        List<String> lines = Files.readAllLines(dir.resolve("m_sweep.csv"));
        int column = SweepFiles.COLUMNS.indexOf("slo");
        List<String> cells = lines.subList(1, lines.size()).stream().map(l -> l.split(",", -1)[column]).toList();
        assertEquals(List.of("met (unresolved)", "missed", "not_judged", ""), cells);
        assertEquals(levels.get(0).slo().cell(), cells.get(0));
    }
}
