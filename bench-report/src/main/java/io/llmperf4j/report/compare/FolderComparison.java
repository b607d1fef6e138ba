package io.llmperf4j.report.compare;

import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.output.ComparisonFile;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.ResultsFolder;
import io.llmperf4j.report.output.SweepFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Two results folders of the same kind compared unit by unit: two runs as one unit; two sweeps level by level
 * (matched by concurrency or rate); two comparisons of models by model and level; two sets of iterations level by
 * level. Each matched unit is a {@link RunComparison} with the bootstrap CIs of the single-run compare; iterations
 * compare what their rows hold, the means over measured iterations with Welch's t intervals
 * ({@link IterationsComparison}).
 *
 * @param kind            what both folders are
 * @param matchedBy       what units were matched by, e.g. "concurrency"; empty for two runs
 * @param units           the matched units, in the baseline's order
 * @param onlyInBaseline  units of the baseline the candidate lacks (or that kept no records)
 * @param onlyInCandidate units of the candidate the baseline lacks
 */
public record FolderComparison(ResultsFolder.Kind kind, String matchedBy, List<Unit> units,
                               List<String> onlyInBaseline, List<String> onlyInCandidate) {

    /** One matched unit: a level of a sweep, a model at a level, or the whole run. */
    public record Unit(String label, RunComparison comparison) {
        public Unit {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(comparison, "comparison");
        }
    }

    public FolderComparison {
        Objects.requireNonNull(kind, "kind");
        units = List.copyOf(units);
        onlyInBaseline = List.copyOf(onlyInBaseline);
        onlyInCandidate = List.copyOf(onlyInCandidate);
    }

    /**
     * Compares {@code candidate} against {@code baseline}, each a results folder or one of its files.
     *
     * @throws IOException              naming a missing or malformed file
     * @throws IllegalArgumentException when the two are of different kinds, their load units differ, or no unit
     *                                  matches (the message says which)
     */
    public static FolderComparison compare(Path baseline, Path candidate, TokenCounting counting,
                                           BootstrapConfig config) throws IOException {
        ResultsFolder a = iterationsOfSweep(ResultsFolder.detect(baseline));
        ResultsFolder b = iterationsOfSweep(ResultsFolder.detect(candidate));
        if (a.kind() != b.kind()) {
            throw new IllegalArgumentException(baseline + " is " + article(a.kind()) + " and " + candidate + " "
                    + article(b.kind()) + ": compare two runs, two sweeps, two sets of iterations or two comparisons"
                    + " (or give a sweep's level folder to compare it with a run)");
        }
        return switch (a.kind()) {
            case RUN -> new FolderComparison(a.kind(), "", List.of(new Unit("",
                    RunComparison.compare(RunSamples.read(baseline, counting), RunSamples.read(candidate, counting),
                            config))), List.of(), List.of());
            case SWEEP -> sweeps(a, b, counting, config);
            case COMPARISON -> comparisons(a, b, counting, config);
            case ITERATIONS -> IterationsComparison.compare(a, b, config);
        };
    }

    /**
     * A sweep run with {@code --iterations} keeps no folder per level: its levels are in
     * {@code <base>_iterations.csv} beside {@code <base>_sweep.json}, so it compares as iterations, level by level.
     * Any other folder is returned as is.
     */
    static ResultsFolder iterationsOfSweep(ResultsFolder folder) throws IOException {
        if (folder.kind() != ResultsFolder.Kind.SWEEP) return folder;
        Path iterations = folder.dir().resolve(folder.base() + IterationsFile.SUFFIX);
        if (!Files.isRegularFile(iterations)) return folder;
        SweepFiles.Document doc = SweepFiles.read(folder.file());
        boolean noLevelFolders = doc.levels().stream()
                .allMatch(l -> l.resultsDir() == null || l.resultsDir().isEmpty());
        return noLevelFolders ? new ResultsFolder(ResultsFolder.Kind.ITERATIONS, folder.dir(), iterations) : folder;
    }

    /** "a run", "a sweep", "a set of iterations", "a comparison". */
    static String article(ResultsFolder.Kind kind) {
        return kind == ResultsFolder.Kind.ITERATIONS ? "a set of iterations" : "a " + kind.word();
    }

    /**
     * The rules on every unit, each message prefixed with the unit's label. A rule on a statistic the unit does not
     * have (iterations keep no per-request values) is NOT EVALUATED, saying what the unit has instead.
     */
    public List<RuleResult> evaluate(List<FailIfRule> rules) {
        List<RuleResult> results = new ArrayList<>();
        for (Unit unit : units) {
            String prefix = unit.label().isEmpty() ? "" : unit.label() + ": ";
            for (FailIfRule rule : rules) {
                if (kind == ResultsFolder.Kind.ITERATIONS
                        && unit.comparison().delta(rule.metric(), rule.stat()).isEmpty()) {
                    results.add(new RuleResult(rule, RuleResult.Verdict.NOT_EVALUATED, Double.NaN, prefix
                            + "NOT EVALUATED " + rule.text() + ": " + IterationsComparison.unavailable(rule)));
                    continue;
                }
                RuleResult r = rule.evaluate(unit.comparison());
                results.add(new RuleResult(r.rule(), r.verdict(), r.observed(), prefix + r.message()));
            }
        }
        return results;
    }

    // ---------------------------------------------------------------- sweeps

    private static FolderComparison sweeps(ResultsFolder a, ResultsFolder b, TokenCounting counting,
                                           BootstrapConfig config) throws IOException {
        SweepFiles.Document da = SweepFiles.read(a.file());
        SweepFiles.Document db = SweepFiles.read(b.file());
        if (!Objects.equals(da.loadUnit(), db.loadUnit())) {
            throw new IllegalArgumentException("the baseline sweeps " + da.loadUnit() + " and the candidate "
                    + db.loadUnit() + ": levels of different loads cannot be matched");
        }
        Map<String, Path> left = new LinkedHashMap<>();
        Map<String, Path> right = new LinkedHashMap<>();
        for (SweepFiles.Level l : da.levels()) left.put(l.label(), dirOf(a, l.resultsDir()));
        for (SweepFiles.Level l : db.levels()) right.put(l.label(), dirOf(b, l.resultsDir()));
        return matched(ResultsFolder.Kind.SWEEP, da.levelName(), left, right, counting, config);
    }

    private static Path dirOf(ResultsFolder folder, String relative) {
        return relative == null || relative.isEmpty() ? null : folder.dir().resolve(relative);
    }

    // ---------------------------------------------------------------- comparisons of models

    private static FolderComparison comparisons(ResultsFolder a, ResultsFolder b, TokenCounting counting,
                                                BootstrapConfig config) throws IOException {
        Map<String, Path> left = new LinkedHashMap<>();
        Map<String, Path> right = new LinkedHashMap<>();
        for (ComparisonFile.Row r : ComparisonFile.read(a.file())) left.put(modelLevel(r), dirOf(a, r.resultsDir()));
        for (ComparisonFile.Row r : ComparisonFile.read(b.file())) right.put(modelLevel(r), dirOf(b, r.resultsDir()));
        return matched(ResultsFolder.Kind.COMPARISON, "model and level", left, right, counting, config);
    }

    private static String modelLevel(ComparisonFile.Row r) {
        return r.model() + " @ " + r.loadUnit() + " " + r.level();
    }

    private static FolderComparison matched(ResultsFolder.Kind kind, String matchedBy, Map<String, Path> left,
                                            Map<String, Path> right, TokenCounting counting,
                                            BootstrapConfig config) throws IOException {
        List<Unit> units = new ArrayList<>();
        List<String> onlyLeft = new ArrayList<>();
        List<String> onlyRight = new ArrayList<>(right.keySet());
        for (Map.Entry<String, Path> e : left.entrySet()) {
            Path other = right.get(e.getKey());
            if (other == null || e.getValue() == null) {
                onlyLeft.add(e.getKey() + (other == null ? "" : " (no folder)"));
                continue;
            }
            onlyRight.remove(e.getKey());
            RunSamples sa = RunSamples.read(e.getValue(), counting);
            RunSamples sb = RunSamples.read(other, counting);
            units.add(new Unit(e.getKey(), RunComparison.compare(sa, sb, config)));
        }
        if (units.isEmpty()) {
            throw new IllegalArgumentException("no " + matchedBy + " is in both: the baseline has "
                    + String.join(", ", left.keySet()) + "; the candidate " + String.join(", ", right.keySet()));
        }
        return new FolderComparison(kind, matchedBy, units, onlyLeft, onlyRight);
    }

    /** "concurrency" or "model and level", for the console. */
    String matchedByWords() {
        return matchedBy.isEmpty() ? "" : matchedBy.toLowerCase(Locale.ROOT);
    }
}
