package io.llmperf4j.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.SaturationVerdict;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The files of token-benchmark's load runs, beside llmperf's: a sweep's JSON and CSV (one row per level), an open
 * loop's figures, per-iteration scores, and a comparison of models. JSON is pretty-printed UTF-8 with snake-case
 * keys and a final newline; an undefined number is {@code null} in JSON and an empty field in CSV (RFC 4180, header
 * row), so a notebook reads both without special cases.
 */
final class LoadFiles {
    static final String SWEEP_SCHEMA = "llmperf4j.sweep/1";
    static final String OPEN_LOOP_SCHEMA = "llmperf4j.open_loop/1";

    /** The columns of {@code <base>_sweep.csv}, in order. */
    static final List<String> SWEEP_COLUMNS = List.of("level", "load_unit", "successes", "total", "failures",
            "failure_rate", "output_tok_s", "requests_s", "ttft_p50_ms", "ttft_p90_ms", "e2e_p50_ms", "e2e_p90_ms",
            "aborted", "saturation_point", "ttft_red_line", "first_failing", "few_samples", "throughput_gain",
            "ttft_p90_ratio");

    /** The columns of {@code <base>_iterations.csv}, in order. */
    static final List<String> ITERATION_COLUMNS = List.of("level", "load_unit", "fork", "iteration_type",
            "iteration", "start_offset_s", "duration_s", "output_tokens", "output_tok_s", "requests_completed",
            "requests_failed", "requests_s", "ttft_mean_ms", "tpot_mean_ms");

    /** The columns of {@code comparison.csv}, in order. */
    static final List<String> COMPARISON_COLUMNS = List.of("model", "level", "load_unit", "successes", "total",
            "output_tok_s", "requests_s", "ttft_p50_ms", "ttft_p90_ms", "e2e_p50_ms", "e2e_p90_ms", "aborted",
            "results_dir");

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .build();
    private static final ObjectWriter WRITER = MAPPER.writer(new DefaultPrettyPrinter()
            .withSeparators(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n")));

    private LoadFiles() {
    }

    // ---------------------------------------------------------------- sweep

    /** {@code <base>_sweep.json}: the plan, the rules, the verdict and one object per level that ran. */
    record SweepJson(String schema, String model, String levelName, String loadUnit, List<Double> plannedLevels,
                     String load, String warmup, RulesJson rules, VerdictJson verdict, boolean stopped,
                     List<SweepLevelJson> levels) {
    }

    record RulesJson(double saturationGainPercent, double ttftJumpFactor, int minSuccessfulSamples) {
        static RulesJson of(SaturationRules r) {
            return new RulesJson(100 * r.minThroughputGain(), r.ttftJumpFactor(), r.minSuccessfulSamples());
        }
    }

    record VerdictJson(Double saturationLevel, Double ttftRedLineLevel, Double firstFailingLevel,
                       List<String> lines, List<String> warnings) {
    }

    record SweepLevelJson(double level, String loadUnit, String label, int successes, int total, int failures,
                          Double failureRate, Double outputTokS, Double requestsS, Double ttftP50Ms, Double ttftP90Ms,
                          Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint,
                          boolean ttftRedLine, boolean firstFailing, boolean fewSamples, Double throughputGain,
                          Double ttftP90Ratio, String resultsDir) {
    }

    /** One level of a sweep as the files need it. */
    record SweepRow(LoadSettings settings, LevelSummary summary, boolean aborted, String folder) {
    }

    /** Writes {@code <base>_sweep.json} and {@code <base>_sweep.csv} into {@code dir}; returns both. */
    static List<Path> writeSweep(Path dir, String base, String model, LoadPlan plan, List<SweepRow> rows,
                                 SaturationVerdict verdict, boolean stopped) throws IOException {
        Files.createDirectories(dir);
        List<SweepLevelJson> levels = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            SweepRow row = rows.get(i);
            LevelSummary s = row.summary();
            SaturationVerdict.LevelVerdict v = verdict.levels().get(i);
            levels.add(new SweepLevelJson(s.level(), plan.loadUnit(), LoadPlan.label(row.settings()), s.successes(),
                    s.total(), s.failures(), s.total() == 0 ? null : s.failureRate(), num(s.outputTokensPerSecond()),
                    num(s.requestsPerSecond()), num(s.ttftP50Millis()), num(s.ttftP90Millis()),
                    num(s.e2eP50Millis()), num(s.e2eP90Millis()), row.aborted(), is(verdict.saturationIndex(), i),
                    is(verdict.ttftRedLineIndex(), i), is(verdict.firstFailingIndex(), i), v.fewSamples(),
                    num(v.throughputGain()), num(v.ttftP90Ratio()), row.folder()));
        }
        List<Double> planned = plan.profile().levels(plan.warmup()).stream().map(LoadSettings::level).toList();
        VerdictJson verdictJson = new VerdictJson(level(verdict.saturationLevel()), level(verdict.ttftRedLineLevel()),
                level(verdict.firstFailingLevel()), verdict.describe(plan.levelName()), verdict.warnings());
        SweepJson doc = new SweepJson(SWEEP_SCHEMA, model, plan.levelName(), plan.loadUnit(), planned,
                plan.describe(), plan.warmupText(), RulesJson.of(verdict.rules()), verdictJson, stopped, levels);
        Path json = dir.resolve(base + "_sweep.json");
        writeJson(doc, json);

        Path csv = dir.resolve(base + "_sweep.csv");
        try (CSVPrinter printer = csv(csv, SWEEP_COLUMNS)) {
            for (SweepLevelJson l : levels) {
                printer.printRecord(LoadSettings.formatLevel(l.level()), l.loadUnit(), l.successes(), l.total(),
                        l.failures(), cell(l.failureRate()), cell(l.outputTokS()), cell(l.requestsS()),
                        cell(l.ttftP50Ms()), cell(l.ttftP90Ms()), cell(l.e2eP50Ms()), cell(l.e2eP90Ms()), l.aborted(),
                        l.saturationPoint(), l.ttftRedLine(), l.firstFailing(), l.fewSamples(),
                        cell(l.throughputGain()), cell(l.ttftP90Ratio()));
            }
        }
        return List.of(json, csv);
    }

    // ---------------------------------------------------------------- open loop

    /** {@code <base>_open_loop.json}: the schedule and what became of it, latencies in ms. */
    record OpenLoopJson(String schema, String model, double offeredRequestsPerS, String arrival, Double burstiness,
                        long seed, Integer maxConcurrency, String warmup, Double scheduledRequestsPerS,
                        Double achievedSendRequestsPerS, Double completedRequestsPerS, int arrivalsScheduled,
                        int requestsSent, int requestsSucceeded, int arrivalsNotSent, int maxBacklog,
                        boolean timedOut, boolean stopped, LatencyJson sendLagMs, LatencyJson ttftFromIntendedMs,
                        LatencyJson ttftFromActualMs, LatencyJson e2eFromIntendedMs, LatencyJson e2eFromActualMs) {
    }

    record LatencyJson(long count, Double mean, Double p50, Double p90, Double p99, Double p999, Double max) {
        static LatencyJson of(LatencyPercentiles p) {
            if (p.count() == 0) return new LatencyJson(0, null, null, null, null, null, null);
            return new LatencyJson(p.count(), p.meanNanos() / 1e6, p.p50Nanos() / 1e6, p.p90Nanos() / 1e6,
                    p.p99Nanos() / 1e6, p.p999Nanos() / 1e6, p.maxNanos() / 1e6);
        }
    }

    static Path writeOpenLoop(Path dir, String base, String model, OpenLoopResult result, String warmup)
            throws IOException {
        Files.createDirectories(dir);
        OpenLoopSettings s = result.settings();
        OpenLoopSummary sum = result.summary();
        Double burstiness = s.arrival() instanceof Arrival.Gamma g ? g.shape() : null;
        OpenLoopJson doc = new OpenLoopJson(OPEN_LOOP_SCHEMA, model, s.requestsPerSecond(), s.arrival().name(),
                burstiness, s.seed(), s.maxConcurrency().isPresent() ? s.maxConcurrency().getAsInt() : null, warmup,
                num(sum.scheduledRequestsPerSecond()), num(sum.achievedSendRequestsPerSecond()),
                num(sum.completedRequestsPerSecond()), sum.arrivalsScheduled(), sum.requestsSent(),
                sum.requestsSucceeded(), sum.arrivalsNotSent(), sum.maxBacklog(), result.timedOut(), result.stopped(),
                LatencyJson.of(sum.sendLag()), LatencyJson.of(sum.ttftFromIntended()),
                LatencyJson.of(sum.ttftFromActual()), LatencyJson.of(sum.e2eFromIntended()),
                LatencyJson.of(sum.e2eFromActual()));
        Path file = dir.resolve(base + "_open_loop.json");
        writeJson(doc, file);
        return file;
    }

    // ---------------------------------------------------------------- iterations

    /** {@code <base>_iterations.csv}: every iteration of every fork and level, warmup ones flagged. */
    static Path writeIterations(Path dir, String base, String loadUnit, List<HarnessResult> results)
            throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(base + "_iterations.csv");
        try (CSVPrinter printer = csv(file, ITERATION_COLUMNS)) {
            for (HarnessResult r : results) {
                String level = LoadSettings.formatLevel(r.load().level());
                for (ForkResult f : r.forks()) {
                    List<IterationResult> all = new ArrayList<>(f.warmup());
                    all.addAll(f.measurement());
                    for (IterationResult i : all) {
                        printer.printRecord(level, loadUnit, i.fork(), i.type().name().toLowerCase(Locale.ROOT),
                                i.index(), fixed(i.startOffsetNanos() / 1e9), fixed(i.durationNanos() / 1e9),
                                fixed(i.outputTokens()), cell(num(i.outputTokensPerSecond())), i.requestsCompleted(),
                                i.requestsFailed(), cell(num(i.requestsPerSecond())), cell(num(i.meanTtftMillis())),
                                cell(num(i.meanTpotMillis())));
                    }
                }
            }
        }
        return file;
    }

    // ---------------------------------------------------------------- comparison

    /** One row of a comparison: a model at one level. */
    record ComparisonRow(String model, LoadSettings settings, LevelSummary summary, boolean aborted, String dir) {
    }

    static Path writeComparison(Path dir, String loadUnit, List<ComparisonRow> rows) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("comparison.csv");
        try (CSVPrinter printer = csv(file, COMPARISON_COLUMNS)) {
            for (ComparisonRow row : rows) {
                LevelSummary s = row.summary();
                printer.printRecord(row.model(), LoadSettings.formatLevel(s.level()), loadUnit, s.successes(),
                        s.total(), cell(num(s.outputTokensPerSecond())), cell(num(s.requestsPerSecond())),
                        cell(num(s.ttftP50Millis())), cell(num(s.ttftP90Millis())), cell(num(s.e2eP50Millis())),
                        cell(num(s.e2eP90Millis())), row.aborted(), row.dir());
            }
        }
        return file;
    }

    // ---------------------------------------------------------------- helpers

    private static void writeJson(Object doc, Path file) throws IOException {
        try {
            Files.writeString(file, WRITER.writeValueAsString(doc) + "\n", StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + file.getFileName() + ": " + e.getOriginalMessage(),
                    e);
        }
    }

    private static CSVPrinter csv(Path file, List<String> header) throws IOException {
        Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        return new CSVPrinter(writer, CSVFormat.RFC4180.builder().setHeader(header.toArray(String[]::new)).get());
    }

    /** NaN and infinities are undefined: null. */
    static Double num(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static Double level(OptionalDouble level) {
        return level.isPresent() ? level.getAsDouble() : null;
    }

    private static boolean is(OptionalInt index, int i) {
        return index.isPresent() && index.getAsInt() == i;
    }

    /** A CSV cell: empty when undefined, plain decimal otherwise (never an exponent). */
    private static String cell(Double v) {
        return v == null ? "" : fixed(v);
    }

    private static String fixed(double v) {
        return new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }
}
