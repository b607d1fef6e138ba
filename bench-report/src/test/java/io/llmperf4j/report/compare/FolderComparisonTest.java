package io.llmperf4j.report.compare;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.ResultsFolder;
import io.llmperf4j.report.output.SweepFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two sweeps compared level by level, and two sets of iterations; units matched by their level. */
class FolderComparisonTest {

    /** A sweep of these concurrencies; level c's 20 requests have TTFT (100 × c × slowdown(c) + i) ms. */
    private static Path sweep(Path dir, int[] levels, int slowerLevel) throws Exception {
        List<SweepFiles.Level> rows = new ArrayList<>();
        for (int c : levels) {
            Path levelDir = java.nio.file.Files.createDirectories(dir.resolve("concurrency_" + c));
            int factor = c == slowerLevel ? 2 : 1;
            try (RequestJournal journal = RequestJournal.create(levelDir)) {
                for (int i = 0; i < 20; i++) {
                    long ttft = (100L * c * factor + i) * MS;
                    journal.append(request(i).start(START_EPOCH_MICROS + i * 1000L).evenEvents(ttft, 10 * MS, 5)
                            .e2e(ttft + 41 * MS).usage(100, 5).client(6).build());
                }
            }
            rows.add(new SweepFiles.Level(c, "concurrency", "concurrency " + c, 20, 20, 0, 0.0, 10.0, 1.0, null,
                    null, null, null, false, false, false, false, false, null, null, "concurrency_" + c));
        }
        SweepFiles.write(dir, "m_100_5", new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency",
                "concurrency", rows.stream().map(SweepFiles.Level::level).toList(), "sweep", "none",
                new SweepFiles.Rules(5, 2, 5), new SweepFiles.Verdict(null, null, null, List.of(), List.of()), false,
                rows));
        return dir;
    }

    @Test
    void matchesSweepLevelsByConcurrency(@TempDir Path tmp) throws Exception {
        Path a = sweep(tmp.resolve("a"), new int[] {1, 2, 4}, -1);
        Path b = sweep(tmp.resolve("b"), new int[] {2, 4, 8}, 4);
        FolderComparison c = FolderComparison.compare(a, b, TokenCounting.DEFAULT, BootstrapConfig.DEFAULT);
        assertEquals(ResultsFolder.Kind.SWEEP, c.kind());
        assertEquals(List.of("concurrency 2", "concurrency 4"), c.units().stream().map(FolderComparison.Unit::label)
                .toList());
        assertEquals(List.of("concurrency 1"), c.onlyInBaseline());
        assertEquals(List.of("concurrency 8"), c.onlyInCandidate());

        MetricDelta same = c.units().get(0).comparison().delta(CompareMetric.TTFT, CompareStat.P50).orElseThrow();
        assertEquals(209.5, same.baseline(), 1e-9);
        assertEquals(0.0, same.absoluteDelta(), 1e-9);
        MetricDelta slower = c.units().get(1).comparison().delta(CompareMetric.TTFT, CompareStat.P50).orElseThrow();
        assertEquals(409.5, slower.baseline(), 1e-9);
        assertEquals(809.5, slower.candidate(), 1e-9);
        assertTrue(slower.significant(), "the CI of a doubled TTFT excludes 0");

        List<RuleResult> results = c.evaluate(FailIfRule.parseAll("ttft_p90>+10%"));
        assertEquals(2, results.size());
        assertFalse(results.get(0).failed(), results.get(0).message());
        assertTrue(results.get(1).failed(), results.get(1).message());
        assertTrue(results.get(1).message().startsWith("concurrency 4: FAIL"), results.get(1).message());

        String table = FolderComparisonConsoleReport.render(c, results);
        assertTrue(table.startsWith("Sweeps compared level by level (matched by concurrency): 2 in both; only in "
                + "the baseline: concurrency 1; only in the candidate: concurrency 8\n"), table);
        assertTrue(table.contains("concurrency 4          TTFT                        p50       409.500     809.500"),
                table);
    }

    @Test
    void refusesFoldersOfDifferentKinds(@TempDir Path tmp) throws Exception {
        Path a = sweep(tmp.resolve("a"), new int[] {1}, -1);
        Path run = a.resolve("concurrency_1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FolderComparison.compare(a, run, TokenCounting.DEFAULT, BootstrapConfig.DEFAULT));
        assertTrue(e.getMessage().contains("is a sweep and"), e.getMessage());
        assertTrue(e.getMessage().contains("a run"), e.getMessage());
    }

    @Test
    void comparesIterationsByTheirMeanThroughput(@TempDir Path tmp) throws Exception {
        for (String side : List.of("a", "b")) {
            List<IterationsFile.Row> rows = new ArrayList<>();
            rows.add(new IterationsFile.Row("4", "concurrency", 1, "warmup", 1, 0, 1, 10, 999.0, 1, 0, 1.0, 10.0, 1.0));
            for (int i = 1; i <= 5; i++) {
                double tps = (side.equals("a") ? 100 : 120) + i;
                rows.add(new IterationsFile.Row("4", "concurrency", 1, "measurement", i, i, 1, tps, tps, 3, 0, 3.0,
                        10.0, 1.0));
            }
            IterationsFile.write(tmp.resolve(side), "m_100_5", rows);
        }
        FolderComparison c = FolderComparison.compare(tmp.resolve("a"), tmp.resolve("b"), TokenCounting.DEFAULT,
                BootstrapConfig.DEFAULT);
        assertEquals(ResultsFolder.Kind.ITERATIONS, c.kind());
        MetricDelta d = c.units().get(0).comparison().delta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE)
                .orElseThrow();
        assertEquals(103.0, d.baseline(), 1e-9, "warmup left out");
        assertEquals(123.0, d.candidate(), 1e-9);
        assertTrue(d.significant());
        List<RuleResult> results = c.evaluate(FailIfRule.parseAll("output_throughput<-5%,ttft_p90>+10%"));
        assertFalse(results.get(0).failed(), results.get(0).message());
        assertEquals(RuleResult.Verdict.NOT_EVALUATED, results.get(1).verdict());
    }

    /** A sweep run with --iterations: levels without folders, the iterations CSV beside the sweep file. */
    private static Path sweepWithIterations(Path dir, double base) throws Exception {
        List<IterationsFile.Row> rows = new ArrayList<>();
        List<SweepFiles.Level> levels = new ArrayList<>();
        for (int c : new int[] {1, 2}) {
            rows.add(new IterationsFile.Row(String.valueOf(c), "concurrency", 1, "warmup", 1, 0, 1, 10, 999.0, 1, 0,
                    1.0, 10.0, 1.0));
            for (int i = 1; i <= 3; i++) {
                double tps = base * c + i;
                rows.add(new IterationsFile.Row(String.valueOf(c), "concurrency", 1, "measurement", i, i, 1, tps, tps,
                        3, 0, 3.0, 10.0, 1.0));
            }
            levels.add(new SweepFiles.Level(c, "concurrency", "concurrency " + c, 6, 6, 0, 0.0, base * c, 3.0, null,
                    null, null, null, false, false, false, false, false, null, null, null));
        }
        IterationsFile.write(dir, "m_100_5", rows);
        SweepFiles.write(dir, "m_100_5", new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency",
                "concurrency", List.of(1.0, 2.0), "concurrency sweep 1,2; 1 warmup + 3 measurement iterations", "none",
                new SweepFiles.Rules(5, 2, 5), new SweepFiles.Verdict(null, null, null, List.of(), List.of()), false,
                levels));
        return dir;
    }

    @Test
    void comparesTwoSweepsRunWithIterationsLevelByLevel(@TempDir Path tmp) throws Exception {
        Path a = sweepWithIterations(tmp.resolve("a"), 100);
        Path b = sweepWithIterations(tmp.resolve("b"), 110);
        FolderComparison c = FolderComparison.compare(a, b, TokenCounting.DEFAULT, BootstrapConfig.DEFAULT);
        assertEquals(ResultsFolder.Kind.ITERATIONS, c.kind());
        assertEquals(List.of("concurrency 1", "concurrency 2"),
                c.units().stream().map(FolderComparison.Unit::label).toList());
        MetricDelta d = c.units().get(1).comparison().delta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE)
                .orElseThrow();
        assertEquals(202.0, d.baseline(), 1e-9, "warmup left out");
        assertEquals(222.0, d.candidate(), 1e-9);
        assertTrue(c.onlyInBaseline().isEmpty() && c.onlyInCandidate().isEmpty());
        String table = FolderComparisonConsoleReport.render(c, List.of());
        assertTrue(table.startsWith("Iterations compared level by level (matched by level): 2 in both\n"), table);
        assertTrue(table.contains("resampling the measured iterations"), table);
        assertEquals(1, table.lines().filter(l -> l.startsWith("level ")).count(), table);
        // the same sweep against itself compares too (the reported bug: "no concurrency is in both")
        assertEquals(2, FolderComparison.compare(a, a, TokenCounting.DEFAULT, BootstrapConfig.DEFAULT).units().size());
    }

    @Test
    void aSweepWithIterationsAgainstARunIsRefusedInPlainWords(@TempDir Path tmp) throws Exception {
        Path a = sweepWithIterations(tmp.resolve("a"), 100);
        Path run = sweep(tmp.resolve("b"), new int[] {1}, -1).resolve("concurrency_1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FolderComparison.compare(a, run, TokenCounting.DEFAULT, BootstrapConfig.DEFAULT));
        assertTrue(e.getMessage().contains("is a set of iterations and"), e.getMessage());
    }
}
