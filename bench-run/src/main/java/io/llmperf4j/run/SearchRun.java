package io.llmperf4j.run;

import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.metrics.Goodput;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.search.LevelJudge;
import io.llmperf4j.report.search.LevelJudgement;
import io.llmperf4j.report.search.ObjectiveResult;
import io.llmperf4j.report.search.SearchConsole;
import io.llmperf4j.report.search.SearchDocument;
import io.llmperf4j.report.search.SearchFiles;
import io.llmperf4j.report.metrics.SloObjective;
import io.llmperf4j.run.search.LevelChooser;
import io.llmperf4j.run.search.SearchPlan;
import io.llmperf4j.run.search.SearchResult;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * A capacity search ({@link SearchPlan}) through the ordinary flow: each probe level is a one-level {@link LoadPlan}
 * run by the executor (this machine or a cluster) through a {@link ModelRun}, so it writes its usual files in its
 * own folder. A {@link LevelJudge} watches the level's requests as they end and ends the level (its requests in
 * flight cancelled, which a server aborts, so the next level starts on an empty queue) as soon as the verdict is
 * resolved; requests ending after that decision do not change it. Then the search's own files and console report.
 */
final class SearchRun {
    private final SearchPlan search;
    private final LoadExecutor executor;
    private final Function<LoadPlan, ModelRun.Context> contexts;
    private final BenchmarkSettings base;
    private final TokenCounting tokenCounting;
    private final Path resultsDir;
    private final StopControl stops;
    private final PrintStream out;
    private final PrintStream err;
    private final long workloadSeed;
    private final int maxConnectionsCap;
    private final int timeoutSeconds;
    /** Every measured request of the levels run so far (warm-up excluded), in level order. */
    private final List<RequestRecord> records = new ArrayList<>();

    /**
     * @param contexts     the model run's context for a level's plan
     * @param base         the run's parameters (model set)
     * @param workloadSeed the open loop's seed when the plan gives none
     */
    SearchRun(SearchPlan search, LoadExecutor executor, Function<LoadPlan, ModelRun.Context> contexts,
              BenchmarkSettings base, TokenCounting tokenCounting, Path resultsDir, StopControl stops,
              PrintStream out, PrintStream err, long workloadSeed, int timeoutSeconds) {
        this.search = search;
        this.executor = executor;
        this.contexts = contexts;
        this.base = base;
        this.tokenCounting = tokenCounting;
        this.resultsDir = resultsDir;
        this.stops = stops;
        this.out = out;
        this.err = err;
        this.workloadSeed = workloadSeed;
        this.maxConnectionsCap = LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** A level as run: its verdict and figures. */
    private record Probe(int index, String phase, double load, LevelJudgement judgement, String stop,
                         ModelRun.LevelReport report, String folder, int cancelledAtStop) {
    }

    SearchResult run(String model) {
        err.println("llmperf4j: capacity search over " + search.mode().key() + " from "
                + LoadSettings.formatLevel(search.start()) + " to " + LoadSettings.formatLevel(search.max()) + ": "
                + String.join(", ", search.objectives().stream().map(SloObjective::key).toList())
                + "; each level at most " + search.levelMax().describe() + executor.where(levelPlan(model,
                search.start())));
        LevelChooser chooser = new LevelChooser(search);
        List<Probe> probes = new ArrayList<>();
        while (!stops.allStopped()) {
            OptionalDouble next = chooser.next();
            if (next.isEmpty()) break;
            if (!probes.isEmpty() && !stops.pause(search.pause())) break;
            Probe probe = probe(model, probes.size() + 1, chooser.growing() ? "grow" : "bisect", next.getAsDouble());
            probes.add(probe);
            if (stops.interrupted()) break;
            chooser.record(probe.load(), probe.judgement().passed());
        }
        List<String> warnings = new ArrayList<>();
        double best = chooser.passed();
        if (search.repeatBest() && !Double.isNaN(best) && !stops.interrupted() && stops.pause(search.pause())) {
            Probe repeat = probe(model, probes.size() + 1, "repeat", best);
            probes.add(repeat);
            if (!repeat.judgement().passed() && !stops.interrupted()) {
                warnings.add("the best level (" + search.mode().key() + " " + LoadSettings.formatLevel(best)
                        + ") failed when repeated at the end (" + repeat.judgement().binding().objective()
                        + "): the server may degrade over time, so the capacity found is optimistic");
            }
        }
        SearchDocument doc = document(model, chooser, probes, warnings);
        List<Path> files = List.of();
        if (resultsDir != null) {
            try {
                files = SearchFiles.write(resultsDir, LlmperfFileNames.baseName(base), doc);
                err.println("Results written to " + resultsDir.toAbsolutePath() + ": " + String.join(", ",
                        files.stream().map(p -> p.getFileName().toString()).toList())
                        + " and a folder per level");
            } catch (IOException e) {
                throw new RunFailedException("could not write the search files in " + resultsDir + ": " + e, e);
            }
        }
        out.print(SearchConsole.render(doc));
        // each level's own warnings (its summary's), as a sweep prints its levels': one line per code
        List<String> levelWarnings = LevelWarnings.merged(probes.stream().filter(p -> p.report() != null)
                .map(p -> new LevelWarnings.Level(p.report().outcome().settings(),
                        p.report().metrics() == null ? null : p.report().metrics().warnings(), false)).toList());
        levelWarnings.forEach(w -> out.println("warning: " + w));
        out.flush();
        return new SearchResult(doc, files, stops.interrupted(), levelWarnings);
    }

    /**
     * Every measured request of every level run (the final repeat included, warm-ups not), after {@link #run}: a
     * search whose every request failed gives an --overwrite folder back to the earlier run, as a plain run does.
     */
    List<RequestRecord> records() {
        return List.copyOf(records);
    }

    /** Runs one level and judges it. */
    private Probe probe(String model, int index, String phase, double load) {
        LoadPlan plan = levelPlan(model, load);
        String folder = String.format(Locale.ROOT, "level_%02d_%s_%s", index, search.mode().key(),
                LoadSettings.formatLevel(load));
        Path dir = resultsDir == null ? null : resultsDir.resolve(folder);
        ModelRun run = new ModelRun(model, dir, base, contexts.apply(plan));
        LevelJudge judge = new LevelJudge(search.objectives(), search.minSamples());
        LevelJudgement[] decided = new LevelJudgement[1];
        int[] nextCheck = {search.minSamples()};
        int[] cancelledAtStop = {0};
        run.observeRecords(record -> {
            if (record.warmup()) return;
            if (decided[0] != null) {
                // in flight when the verdict ended the level: cancelled by the search, not failed by the server
                Failure f = record.record().failure();
                if (f != null && f.kind() == FailureKind.CANCELLED) cancelledAtStop[0]++;
                return;
            }
            judge.add(RequestMetrics.from(record.record(), tokenCounting), lag(record));
            if (judge.samples() < nextCheck[0]) return;
            // geometric checkpoints: few looks at the data, so repeated testing inflates the error little
            nextCheck[0] = Math.max(judge.samples() + 1, (int) Math.ceil(judge.samples() * 1.1));
            LevelJudgement j = judge.judge();
            // an open loop past capacity looks fine until its queue has grown: only a failure may end it early
            if (j.resolved() && (search.mode() == SearchPlan.Mode.CONCURRENCY || !j.passed())) {
                decided[0] = j;
                stops.endLevel();
            }
        });
        executor.run(model, plan, run, stops);
        ModelRun.LevelReport report = run.levels().isEmpty() ? null : run.levels().get(0);
        if (report != null && report.run() != null) records.addAll(report.run().records());
        LevelJudgement judgement = decided[0] != null ? decided[0] : judge.judge();
        String stop = decided[0] != null ? "resolved" : stops.interrupted() ? "stopped" : "limit";
        err.printf(Locale.ROOT, "llmperf4j: search level %d (%s %s): %s%s after %d requests, %s%s%s%n", index,
                search.mode().key(), LoadSettings.formatLevel(load), judgement.passed() ? "pass" : "FAIL",
                judgement.resolved() ? "" : " (estimate)", judgement.samples(), describe(judgement.binding()),
                judgement.unresolved().isEmpty() ? "" : "; " + SearchConsole.unresolvedClause(judgement.unresolved()),
                cancelledAtStop[0] == 0 ? "" : "; " + cancelledClause(cancelledAtStop[0]));
        return new Probe(index, phase, load, judgement, stop, report, dir == null ? null : folder,
                cancelledAtStop[0]);
    }

    private static long lag(ScheduledRecord record) {
        return Math.max(0, record.sendLagNanos());
    }

    /** The one-level plan of {@code load}. */
    private LoadPlan levelPlan(String model, double load) {
        Duration levelTime = search.levelMax().duration();
        int levelRequests = search.levelMax().requests();
        Duration runTimeout = Duration.ofSeconds(timeoutSeconds);
        if (search.mode() == SearchPlan.Mode.CONCURRENCY) {
            int c = (int) load;
            LoadProfile.ClosedLoop profile = LoadProfile.closedLoop(c)
                    .withMaxRequests(levelRequests > 0 ? levelRequests : Integer.MAX_VALUE)
                    .withTimeout(levelTime != null ? levelTime.plus(warmupTime()) : runTimeout)
                    .withPromptOrder(LoadPlan.PROMPT_ORDER);
            return new LoadPlan(true, List.of(model), LoadPlan.Kind.CLOSED_LOOP, profile, search.warmup(), null,
                    SaturationRules.DEFAULT, Duration.ZERO, c, OpenLoopSettings.DEFAULT_SEED, false);
        }
        long seed = search.arrivalSeed() != null ? search.arrivalSeed() : workloadSeed;
        OpenLoopSettings.Builder b = OpenLoopSettings.builder(load).arrival(search.arrival()).seed(seed);
        if (levelRequests > 0) {
            b.maxRequests(levelRequests).timeout(runTimeout);
        } else {
            // arrivals for the level's time, then at most as long again for those in flight
            b.duration(levelTime).timeout(levelTime.multipliedBy(2).plus(warmupTime()));
        }
        search.maxConcurrency().ifPresent(b::maxConcurrency);
        OpenLoopSettings s = b.build();
        LoadProfile.OpenLoop profile = new LoadProfile.OpenLoop(s.requestsPerSecond(), s.arrival(), s.seed(),
                s.maxRequests(), s.duration(), s.timeout(), s.maxConcurrency());
        return new LoadPlan(true, List.of(model), LoadPlan.Kind.OPEN_LOOP, profile, search.warmup(), null,
                SaturationRules.DEFAULT, Duration.ZERO, search.maxConcurrency().orElse(maxConnectionsCap), seed, true);
    }

    private Duration warmupTime() {
        return search.warmup() instanceof io.llmperf4j.engine.load.Warmup.ForDuration d ? d.duration()
                : Duration.ZERO;
    }

    // ---------------------------------------------------------------- the answer

    private SearchDocument document(String model, LevelChooser chooser, List<Probe> probes, List<String> warnings) {
        String unit = search.mode().unit();
        String key = search.mode().key();
        double capacity = chooser.passed();
        double failed = chooser.failed();
        boolean interrupted = stops.interrupted();
        Probe atCapacity = firstAt(probes, capacity);
        Probe atFailed = firstAt(probes, failed);
        String outcome;
        String binding;
        String verdict;
        if (probes.isEmpty()) {
            outcome = "stopped";
            binding = null;
            verdict = "search stopped before its first level";
        } else if (Double.isNaN(capacity)) {
            outcome = "below_range";
            ObjectiveResult b = probes.get(0).judgement().binding();
            binding = b.objective();
            verdict = belowRangeVerdict(search.mode(), probes.get(0).load(), b);
        } else if (Double.isNaN(failed)) {
            outcome = interrupted ? "stopped" : "above_range";
            ObjectiveResult b = atCapacity.judgement().binding();
            binding = b.objective();
            verdict = (interrupted ? "search stopped (Ctrl-C); best so far: " + key + " "
                    + LoadSettings.formatLevel(capacity) : "capacity above the range: every level up to "
                    + key + " " + LoadSettings.formatLevel(capacity) + " (--search-max) met the objectives; raise "
                    + "--search-max") + "; nearest its limit, at " + key + " " + LoadSettings.formatLevel(capacity)
                    + ": " + describe(b);
        } else {
            outcome = interrupted ? "stopped" : "found";
            ObjectiveResult b = atFailed.judgement().binding();
            binding = b.objective();
            verdict = foundVerdict(interrupted, key, unit, capacity, failed, intervalConfidence(atCapacity, atFailed),
                    b);
        }
        SearchDocument.Goodput goodput = null;
        if (atCapacity != null && atCapacity.report() != null && atCapacity.report().metrics() != null) {
            Goodput g = atCapacity.report().metrics().goodput().orElse(null);
            if (g != null) {
                goodput = new SearchDocument.Goodput(g.slo().describe(), SearchDocument.num(g.goodRequestsPerSecond()),
                        SearchDocument.num(g.goodFraction()));
                verdict += goodputClause(key, search.mode().unit(), capacity, g.goodRequestsPerSecond(),
                        g.slo().describe());
            }
        }
        verdict += "; " + probes.size() + (probes.size() == 1 ? " level" : " levels");
        SearchDocument.Interval interval = probes.isEmpty() ? null : new SearchDocument.Interval(
                Double.isNaN(capacity) ? null : capacity, Double.isNaN(failed) ? null : failed,
                intervalConfidence(atCapacity, atFailed));
        List<SearchDocument.Level> levels = new ArrayList<>();
        for (Probe p : probes) {
            ModelRun.LevelReport r = p.report();
            Double duration = r == null || r.run() == null ? null : r.run().durationNanos() / 1e9;
            Double goodputS = r == null || r.metrics() == null ? null : r.metrics().goodput()
                    .map(g -> SearchDocument.num(g.goodRequestsPerSecond())).orElse(null);
            levels.add(new SearchDocument.Level(p.index(), p.phase(), p.load(), p.judgement().passed(),
                    p.judgement().resolved(), p.stop(), p.judgement().samples(), duration,
                    r == null ? null : SearchDocument.num(r.summary().requestsPerSecond()),
                    r == null ? null : SearchDocument.num(r.summary().outputTokensPerSecond()), goodputS,
                    p.judgement().binding().objective(), p.judgement().results().stream()
                    .map(SearchDocument.Objective::of).toList(), p.folder()));
        }
        String load = search.mode() == SearchPlan.Mode.CONCURRENCY ? "closed loop"
                : "open loop, " + search.arrival() + " arrivals" + search.maxConcurrency().stream()
                .mapToObj(c -> ", at most " + c + " in flight").findFirst().orElse("");
        SearchDocument.Settings settings = new SearchDocument.Settings(search.start(), search.max(),
                search.tolerance(), search.levelMax().describe(), search.minSamples(), 1 - LevelJudge.ALPHA, load);
        return new SearchDocument(SearchDocument.SCHEMA, model, key, unit, search.objectives().stream()
                .map(SloObjective::key).toList(), outcome, Double.isNaN(capacity) ? null : capacity, interval, binding,
                goodput, verdict, warnings, settings, levels);
    }

    /**
     * "capacity below the range: concurrency 2 (the first level) already fails ...; lower --search-min". At
     * concurrency 1 there is nothing lower to try: the objective is not met even with one request in flight.
     */
    static String belowRangeVerdict(SearchPlan.Mode mode, double firstLoad, ObjectiveResult binding) {
        String level = mode.key() + " " + LoadSettings.formatLevel(firstLoad);
        if (mode == SearchPlan.Mode.CONCURRENCY && firstLoad <= 1) {
            return "capacity below the range: " + level + " (the first level) already fails " + describe(binding)
                    + "; the objective is not met even with one request in flight (a lower --search-min cannot "
                    + "help: look at the server, or the objective)";
        }
        return "capacity below the range: " + level + " (the first level) already fails " + describe(binding)
                + "; lower --search-min";
    }

    /**
     * "; goodput at the capacity, concurrency 4: 7.92 req/s (TTFT <= 300 ms)": the capacity level's goodput, named as
     * such (it follows the clause about the first failing level, whose goodput it is not).
     */
    static String goodputClause(String key, String unit, double capacity, double goodRequestsPerSecond,
                                String slo) {
        return String.format(Locale.ROOT, "; goodput at the capacity, %s %s%s: %.2f req/s (%s)", key,
                LoadSettings.formatLevel(capacity), unit.equals("req/s") ? " req/s" : "", goodRequestsPerSecond, slo);
    }

    /**
     * "8 requests in flight cancelled when the verdict ended the level early: censored, not in the verdict; the
     * level's files count them as a plain run counts requests cancelled at its end (failures in results_error_rate,
     * warning REQUESTS_CANCELLED, out of goodput.judged_requests)".
     */
    static String cancelledClause(int cancelled) {
        return cancelled + (cancelled == 1 ? " request" : " requests") + " in flight cancelled when the verdict "
                + "ended the level early: censored, not in the verdict; the level's files count "
                + (cancelled == 1 ? "it" : "them") + " as a plain run counts requests cancelled at its end (failures "
                + "in results_error_rate, warning REQUESTS_CANCELLED, out of goodput.judged_requests)";
    }

    /** The bracket's confidence: each resolved end holds with 95 % (Bonferroni); null when an end is an estimate. */
    private static Double intervalConfidence(Probe low, Probe high) {
        double confidence = 1;
        for (Probe p : new Probe[]{low, high}) {
            if (p == null) continue;
            if (!p.judgement().resolved()) return null;
            confidence -= LevelJudge.ALPHA;
        }
        return Math.round(confidence * 1e6) / 1e6; // 0.9, not 0.8999999999999999
    }

    /**
     * "capacity: concurrency 4 (fails at 5; the bracket [4, 5] holds with 90 % confidence, each level's verdict at
     * 95 %); binding objective at the first failing level, concurrency 5: ttft_p90<=50ms (estimate 53.7 ms, 95 %
     * interval [50.2, 61.2])". The estimate is the failing level's, and says so: the capacity level met it.
     */
    static String foundVerdict(boolean interrupted, String key, String unit, double capacity, double failed,
                               Double confidence, ObjectiveResult binding) {
        String rate = unit.equals("req/s") ? " req/s" : "";
        String low = LoadSettings.formatLevel(capacity);
        String high = LoadSettings.formatLevel(failed);
        String bracket = confidence == null ? "; a level decided on its point estimate"
                : String.format(Locale.ROOT, "; the bracket [%s, %s] holds with %.0f %% confidence, each level's "
                        + "verdict at %.0f %%", low, high, 100 * confidence, 100 * (1 - LevelJudge.ALPHA));
        return (interrupted ? "search stopped (Ctrl-C); best so far: " : "capacity: ") + key + " " + low + rate
                + " (fails at " + high + bracket + "); binding objective at the first failing level, " + key + " "
                + high + rate + ": " + describe(binding);
    }

    private static Probe firstAt(List<Probe> probes, double load) {
        if (Double.isNaN(load)) return null;
        return probes.stream().filter(p -> p.load() == load && !p.phase().equals("repeat")).findFirst().orElse(null);
    }

    /** "ttft_p99<=300ms (estimate 512 ms, 95 % interval [480, 530])". */
    static String describe(ObjectiveResult r) {
        boolean ms = r.unit().equals("ms");
        return r.objective() + " (estimate " + value(r.estimate(), ms) + ", 95 % interval [" + value(r.low(), ms)
                + ", " + value(r.high(), ms) + "])";
    }

    private static String value(double v, boolean ms) {
        if (Double.isNaN(v)) return "-";
        if (Double.isInfinite(v)) return "inf";
        return ms ? String.format(Locale.ROOT, "%.1f ms", v) : String.format(Locale.ROOT, "%.2f %%", 100 * v);
    }
}
