package io.llmperf4j.run;

import io.llmperf4j.engine.harness.ForkResult;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.IterationResult;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.LatencyPercentiles;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.OpenLoopSummary;
import io.llmperf4j.engine.load.KeepUp;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.report.metrics.Goodput;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.output.ComparisonFile;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.OpenLoopFile;
import io.llmperf4j.report.output.SweepFiles;
import io.llmperf4j.report.search.LevelSlo;
import io.llmperf4j.report.search.SweepSloVerdict;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The engine's results of a load run turned into the documents of its own files (written by bench-report's
 * {@code report.output}): a sweep's JSON and CSV, an open loop's figures, per-iteration scores, a comparison of
 * models. An undefined number (NaN, infinite) becomes null.
 */
final class LoadFiles {
    private LoadFiles() {
    }

    /**
     * One level of a sweep as the files need it.
     *
     * @param slo      its {@code --slo} verdict, or null without one ({@link SloVerdicts#of})
     * @param warnings its summary's warnings, or null when it has no summary (iterations, nothing recorded)
     * @param goodput  its summary's goodput, or null when none was computed (no {@code --slo} latency bound, no
     *                 summary)
     * @param server   its summary's server block (the server's own figures), or null when not scraped
     */
    record SweepRow(LoadSettings settings, LevelSummary summary, boolean aborted, String folder, LevelSlo slo,
                    List<RunWarning> warnings, Goodput goodput, ServerSideSummary server) {
    }

    /**
     * Writes {@code <base>_sweep.json} and {@code <base>_sweep.csv} into {@code dir}; returns both.
     *
     * @param objectives the {@code --slo} objectives the levels were judged against (empty: none)
     */
    static List<Path> writeSweep(Path dir, String base, String model, LoadPlan plan, List<SweepRow> rows,
                                 SaturationVerdict verdict, boolean stopped, List<String> objectives)
            throws IOException {
        List<SweepFiles.Level> levels = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            SweepRow row = rows.get(i);
            LevelSummary s = row.summary();
            SaturationVerdict.LevelVerdict v = verdict.levels().get(i);
            Goodput g = row.goodput();
            levels.add(new SweepFiles.Level(s.level(), plan.levelUnit(), plan.levelLabel(row.settings()), s.successes(),
                    s.total(), s.failures(), s.total() == 0 ? null : s.failureRate(), num(s.outputTokensPerSecond()),
                    num(s.requestsPerSecond()), g == null ? null : num(g.goodRequestsPerSecond()),
                    g == null ? null : num(g.goodFraction()), num(s.ttftP50Millis()), num(s.ttftP90Millis()),
                    num(s.e2eP50Millis()), num(s.e2eP90Millis()), row.aborted(), is(verdict.saturationIndex(), i),
                    is(verdict.ttftRedLineIndex(), i), is(verdict.firstFailingIndex(), i), v.fewSamples(),
                    num(v.throughputGain()), num(v.ttftP90Ratio()), row.folder(), row.slo(),
                    row.warnings() == null ? null : row.warnings().stream().map(SummaryDocument.WarningJson::of)
                            .toList(), num(v.achievedShare()), num(v.shareLow()), num(v.shareHigh()),
                    keptUp(v.keptUp()), s.held() == null ? null : num(s.held().tokensPerSecond()), row.server()));
        }
        List<Double> planned = plan.profile().levels(plan.warmup()).stream().map(LoadSettings::level).toList();
        SweepFiles.Verdict verdictDoc = new SweepFiles.Verdict(level(verdict.saturationLevel()),
                level(verdict.ttftRedLineLevel()), level(verdict.firstFailingLevel()),
                verdict.describe(plan.levelName(), plan.levelUnit()), verdict.warnings(), level(verdict.kneeLevel()));
        SaturationRules r = verdict.rules();
        // the levels' unit as the console's table names it: a rate sweep of sessions (--turns) starts sessions at
        // each level's rate, so its files say sessions/s, as the search's do; its requests_s still counts requests
        SweepFiles.Document doc = new SweepFiles.Document(SweepFiles.SCHEMA, model, plan.levelName(), plan.levelUnit(),
                planned, plan.describe(), plan.warmupText(), new SweepFiles.Rules(100 * r.minThroughputGain(),
                r.ttftJumpFactor(), r.minSuccessfulSamples()), verdictDoc, stopped, levels,
                SloVerdicts.sweep(plan, objectives, rows.stream().map(row -> row.summary().level()).toList(),
                        rows.stream().map(SweepRow::slo).toList()));
        return SweepFiles.write(dir, base, doc);
    }

    /** {@code <base>_open_loop.json}'s content. */
    static OpenLoopFile.Document openLoop(String model, OpenLoopResult result, String warmup,
                                          boolean sessionsWorkload) {
        OpenLoopSettings s = result.settings();
        OpenLoopSummary sum = result.summary();
        Double burstiness = s.arrival() instanceof Arrival.Gamma g ? g.shape() : null;
        OpenLoopFile.TraceJson trace = s.arrival() instanceof Arrival.Trace t ? new OpenLoopFile.TraceJson(t.source(),
                t.requests(), t.span().toNanos() / 1e9, t.speedup(), t.cut() == null ? null : t.cut().toNanos() / 1e9,
                LoadConsole.sessions(result, sessionsWorkload) ? t.sessions() : null,
                LoadConsole.traceRequestsNotSent(result), LoadConsole.sessions(result, sessionsWorkload) ? t.singles() : null,
                t.sessions() > 0 ? t.sessionSpan().toNanos() / 1e9 : null,
                t.start() == null ? null : t.start().toNanos() / 1e9) : null;
        return new OpenLoopFile.Document(OpenLoopFile.SCHEMA, model, s.requestsPerSecond(), s.arrival().name(),
                burstiness, trace == null ? s.seed() : null, trace, s.maxConcurrency().isPresent() ? s.maxConcurrency().getAsInt() : null, warmup,
                num(sum.scheduledRequestsPerSecond()), num(sum.achievedSendRequestsPerSecond()),
                num(sum.completedRequestsPerSecond()), sum.arrivalsScheduled(), sum.requestsSent(),
                sum.requestsSucceeded(), sum.arrivalsNotSent(), sum.maxBacklog(), result.timedOut(), result.stopped(),
                latency(sum.sendLag()), latency(sum.ttftFromIntended()), latency(sum.ttftFromActual()),
                latency(sum.e2eFromIntended()), latency(sum.e2eFromActual()));
    }

    private static OpenLoopFile.Latency latency(LatencyPercentiles p) {
        if (p.count() == 0) return new OpenLoopFile.Latency(0, null, null, null, null, null, null);
        return new OpenLoopFile.Latency(p.count(), p.meanNanos() / 1e6, p.p50Nanos() / 1e6, p.p90Nanos() / 1e6,
                p.p99Nanos() / 1e6, p.p999Nanos() / 1e6, p.maxNanos() / 1e6);
    }

    /** {@code <base>_iterations.csv}: every iteration of every fork and level, warmup ones flagged. */
    static Path writeIterations(Path dir, String base, String loadUnit, List<HarnessResult> results)
            throws IOException {
        List<IterationsFile.Row> rows = new ArrayList<>();
        for (HarnessResult r : results) {
            String level = LoadSettings.formatLevel(r.load().level());
            for (ForkResult f : r.forks()) {
                List<IterationResult> all = new ArrayList<>(f.warmup());
                all.addAll(f.measurement());
                for (IterationResult i : all) {
                    rows.add(new IterationsFile.Row(level, loadUnit, i.fork(),
                            i.type().name().toLowerCase(Locale.ROOT), i.index(), i.startOffsetNanos() / 1e9,
                            i.durationNanos() / 1e9, i.outputTokens(), num(i.outputTokensPerSecond()),
                            i.requestsCompleted(), i.requestsFailed(), num(i.requestsPerSecond()),
                            num(i.meanTtftMillis()), num(i.meanTpotMillis())));
                }
            }
        }
        return IterationsFile.write(dir, base, rows);
    }

    /** One row of a comparison: a model at one level. */
    record ComparisonRow(String model, LoadSettings settings, LevelSummary summary, boolean aborted, String dir) {
    }

    static Path writeComparison(Path dir, String loadUnit, List<ComparisonRow> rows) throws IOException {
        List<ComparisonFile.Row> out = new ArrayList<>();
        for (ComparisonRow row : rows) {
            LevelSummary s = row.summary();
            out.add(new ComparisonFile.Row(row.model(), LoadSettings.formatLevel(s.level()), loadUnit, s.successes(),
                    s.total(), num(s.outputTokensPerSecond()), num(s.requestsPerSecond()), num(s.ttftP50Millis()),
                    num(s.ttftP90Millis()), num(s.e2eP50Millis()), num(s.e2eP90Millis()), row.aborted(), row.dir()));
        }
        return ComparisonFile.write(dir, out);
    }

    /** NaN and infinities are undefined: null. */
    /**
     * A level's {@code kept_up}: yes, no, cannot_tell, client_behind (only the client's send lag failed it), at_cap
     * (only waits for a slot at its --max-concurrency cap did); null for a closed loop or a level not judged.
     */
    static String keptUp(KeepUp.Reading reading) {
        if (reading == null) return null;
        return switch (reading) {
            case KEPT_UP -> "yes";
            case FELL_BEHIND -> "no";
            case CANNOT_TELL -> "cannot_tell";
            case CLIENT_BEHIND -> "client_behind";
            case AT_CAP -> "at_cap";
        };
    }

    static Double num(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static Double level(OptionalDouble level) {
        return level.isPresent() ? level.getAsDouble() : null;
    }

    private static boolean is(OptionalInt index, int i) {
        return index.isPresent() && index.getAsInt() == i;
    }
}
