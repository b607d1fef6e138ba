package io.llmperf4j.report.compare;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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
        assertTrue(table.contains("\nKey statistics only; for every statistic of one level, compare that level's two "
                + "folders\n"), table);
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
    void comparesIterationsByTheirMeansWithWelchIntervals(@TempDir Path tmp) throws Exception {
        for (String side : List.of("a", "b")) {
            boolean a = side.equals("a");
            List<IterationsFile.Row> rows = new ArrayList<>();
            rows.add(new IterationsFile.Row("4", "concurrency", 1, "warmup", 1, 0, 1, 10, 999.0, 1, 0, 1.0, 99.0, 9.0));
            for (int i = 1; i <= 5; i++) {
                double tps = (a ? 100 : 120) + i;
                double ttft = (a ? 30 : 60) + i;
                rows.add(new IterationsFile.Row("4", "concurrency", 1, "measurement", i, i, 1, tps, tps, 3,
                        a || i > 1 ? 0 : 1, 3.0, ttft, 5.0));
            }
            IterationsFile.write(tmp.resolve(side), "m_100_5", rows);
        }
        FolderComparison c = FolderComparison.compare(tmp.resolve("a"), tmp.resolve("b"), TokenCounting.DEFAULT,
                BootstrapConfig.DEFAULT);
        assertEquals(ResultsFolder.Kind.ITERATIONS, c.kind());
        RunComparison level = c.units().get(0).comparison();
        assertEquals(List.of("ttft_mean", "tpot_mean", "output_throughput", "request_throughput", "error_rate"),
                level.deltas().stream().map(MetricDelta::ruleKey).toList());
        MetricDelta d = level.delta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE).orElseThrow();
        assertEquals(103.0, d.baseline(), 1e-9, "warmup left out");
        assertEquals(123.0, d.candidate(), 1e-9);
        // Welch: s² = 2.5 a side, se = 1, df = 8, t(0.9995, 8) = 5.0413: 20 ± 5.0413 at the harness's 99.9 %
        assertEquals(0.999, d.absoluteCi().level());
        assertEquals(20 - 5.041305, d.absoluteCi().lower(), 1e-5);
        assertEquals(20 + 5.041305, d.absoluteCi().upper(), 1e-5);
        assertEquals((20 - 5.041305) / 103 * 100, d.relativeCi().lower(), 1e-4);
        assertTrue(d.significant());
        MetricDelta ttft = level.delta(CompareMetric.TTFT, CompareStat.MEAN).orElseThrow();
        assertEquals(33.0, ttft.baseline(), 1e-9, "the mean of the iterations' means, warmup left out");
        assertEquals(63.0, ttft.candidate(), 1e-9);
        assertTrue(ttft.significant());
        assertFalse(level.delta(CompareMetric.TPOT, CompareStat.MEAN).orElseThrow().significant(), "5 ms on both");
        MetricDelta errors = level.delta(CompareMetric.ERROR_RATE, CompareStat.VALUE).orElseThrow();
        assertEquals(0.0, errors.baseline());
        assertEquals(1.0 / 16, errors.candidate(), 1e-12, "1 failed of 15 completed + 1 failed");

        List<RuleResult> results = c.evaluate(FailIfRule.parseAll(
                "output_throughput<-5%,ttft_mean>+10%,tpot_mean>+10%,error_rate>0.1,ttft_p90>+10%,e2e_p50>+10%"));
        assertEquals(List.of(RuleResult.Verdict.PASS, RuleResult.Verdict.FAIL, RuleResult.Verdict.PASS,
                RuleResult.Verdict.PASS, RuleResult.Verdict.NOT_EVALUATED, RuleResult.Verdict.NOT_EVALUATED),
                results.stream().map(RuleResult::verdict).toList());
        assertTrue(results.get(1).message().startsWith("concurrency 4: FAIL ttft_mean>+10%: TTFT mean changed by "
                + "+90.9% (33.000 -> 63.000 ms, 99.9% CI +"), results.get(1).message());
        assertEquals("concurrency 4: NOT EVALUATED ttft_p90>+10%: iterations keep one row per iteration (its means), "
                + "not per-request values, so no ttft p90: use ttft_mean (the mean of the iterations' means); "
                + "per-request statistics need a run without --iterations", results.get(4).message());
        assertTrue(results.get(5).message().contains("so no e2e p50: rules on iterations can use ttft_mean, tpot_mean, "
                + "output_throughput, request_throughput, error_rate;"), results.get(5).message());

        String table = FolderComparisonConsoleReport.render(c, results);
        assertTrue(table.contains("\ninterval: Welch's t on the difference of the means over the measured iterations, "
                + "99.9 % (the harness's level, as its ± scores); none below 3 iterations a side\n"), table);
        assertTrue(table.contains("99.9% CI (delta %)"), table);
        assertTrue(table.contains("concurrency 4: baseline 5 measured iterations (15 of 15 requests ok), candidate 5 "
                + "measured iterations (15 of 16 requests ok)\n"), table);
        assertTrue(table.contains("concurrency 4          TTFT                        mean       33.000      63.000"),
                table);
        assertFalse(table.contains("too few"), table);
        assertTrue(table.endsWith("2 of 6 verdicts NOT EVALUATED: a gate never passes on a rule it could not "
                + "evaluate, so these fail it (exit 3) as a crossed rule does; drop or replace those rules (each line "
                + "says why and what there is instead)\n"), table);
    }

    /** A sweep run with --iterations: levels without folders, the iterations CSV beside the sweep file. */
    private static Path sweepWithIterations(Path dir, double base) throws Exception {
        return sweepWithIterations(dir, base, 3, false);
    }

    /** As above, with {@code measured} iterations a level, of output tok/s base × c (+ i unless {@code flat}). */
    private static Path sweepWithIterations(Path dir, double base, int measured, boolean flat) throws Exception {
        List<IterationsFile.Row> rows = new ArrayList<>();
        List<SweepFiles.Level> levels = new ArrayList<>();
        for (int c : new int[] {1, 2}) {
            rows.add(new IterationsFile.Row(String.valueOf(c), "concurrency", 1, "warmup", 1, 0, 1, 10, 999.0, 1, 0,
                    1.0, 10.0, 1.0));
            for (int i = 1; i <= measured; i++) {
                double tps = base * c + (flat ? 0 : i);
                rows.add(new IterationsFile.Row(String.valueOf(c), "concurrency", 1, "measurement", i, i, 1, tps, tps,
                        3, 0, 3.0, 10.0, 1.0));
            }
            levels.add(new SweepFiles.Level(c, "concurrency", "concurrency " + c, 6, 6, 0, 0.0, base * c, 3.0, null,
                    null, null, null, false, false, false, false, false, null, null, null));
        }
        IterationsFile.write(dir, "m_100_5", rows);
        SweepFiles.write(dir, "m_100_5", new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency",
                "concurrency", List.of(1.0, 2.0), "concurrency sweep 1,2; 1 warmup + " + measured
                        + " measurement iterations of 1 s, 1 fork", "none",
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
        assertTrue(table.contains("Welch's t interval over the measured iterations of each side"), table);
        assertEquals(1, table.lines().filter(l -> l.startsWith("level ")).count(), table);
        // the same sweep against itself compares too (the reported bug: "no concurrency is in both")
        assertEquals(2, FolderComparison.compare(a, a, TokenCounting.DEFAULT, BootstrapConfig.DEFAULT).units().size());
    }

    /** The QA's case: two measured iterations a level, equal within each side, gave a zero-width starred interval. */
    @Test
    void twoIterationsASideGiveNoIntervalNoStarAndANote(@TempDir Path tmp) throws Exception {
        Path a = sweepWithIterations(tmp.resolve("a"), 100, 2, true);
        Path b = sweepWithIterations(tmp.resolve("b"), 62.5, 2, true);
        FolderComparison c = FolderComparison.compare(a, b, TokenCounting.DEFAULT, BootstrapConfig.DEFAULT);
        MetricDelta d = c.units().get(0).comparison().delta(CompareMetric.OUTPUT_THROUGHPUT, CompareStat.VALUE)
                .orElseThrow();
        assertEquals(-37.5, d.relativeDeltaPercent(), 1e-9);
        assertNull(d.absoluteCi());
        assertNull(d.relativeCi());
        assertFalse(d.significant());
        List<RuleResult> results = c.evaluate(FailIfRule.parseAll("output_throughput<-5%"));
        assertTrue(results.get(0).message().startsWith("concurrency 1: FAIL output_throughput<-5%: Output throughput "
                + "changed by -37.5% (100.000 -> 62.500 tok/s); fails when"), "the point estimate still decides: "
                + results.get(0).message());
        String table = FolderComparisonConsoleReport.render(c, results);
        assertTrue(table.contains("concurrency 1: too few measured iterations for an interval (2 and 2; at least 3 a "
                + "side): no CI, no *, the deltas may be noise; run more with --iterations (or --forks)\n"), table);
        assertTrue(table.contains("concurrency 2: too few measured iterations"), table);
        assertFalse(table.lines().anyMatch(l -> l.startsWith("concurrency") && l.contains("] *")), table);
        assertFalse(table.contains("NOT EVALUATED"), table);
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
