package io.llmperf4j.cli;

import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.search.LevelLimit;
import io.llmperf4j.run.search.SearchPlan;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * token-benchmark's service-level objectives and capacity search: {@code --slo} (goodput bounds and objectives) and
 * {@code --search} with its range, tolerance and per-level limit. {@link #resolve} checks them against the load
 * flags and turns them into a {@link SearchPlan}; the search chooses the levels, so the other load shapes are refused.
 */
final class SearchFlags {

    @Option(names = "--slo", paramLabel = "OBJECTIVES",
            description = "Service-level objectives, comma-separated: percentiles (ttft_p99<=500ms, tpot_p90<=50ms, "
                    + "itl_p99<=100ms, e2e_p95<=20s), attainment (ttft<=500ms@99%%: at least 99%% of the requests "
                    + "within 500 ms), error_rate<=1%%, or plain goodput bounds (ttft=500ms,tpot=50ms). Every run "
                    + "reports goodput (requests meeting every TTFT/TPOT/E2E bound per second); without --search a "
                    + "run (each level of a sweep) also prints a PASS/FAIL verdict per objective with its 95%% "
                    + "interval (the summary's slo block; a sweep's table and files say met/missed per level and up "
                    + "to which level the SLO held; the exit code is unchanged unless --slo-exit); --search finds the "
                    + "highest load meeting every objective. Units ns, us, ms, s; a bare number is ms.")
    String slo;

    @Option(names = "--slo-exit",
            description = "Exit 3 when the --slo verdict fails, after writing every result file: a plain run that "
                    + "missed an objective, a sweep where any level judged missed one (a level stopped by Ctrl-C is "
                    + "not judged; an unresolved one counts by its estimate). The last line says which. Not with "
                    + "--search (its answer is the capacity) or --iterations.")
    boolean sloExit;

    @Option(names = "--search", paramLabel = "concurrency|rate",
            completionCandidates = CompletionValues.SearchAxes.class,
            description = "Capacity search: the highest concurrency (closed loop) or request rate (open loop on its "
                    + "seeded --arrival schedule) meeting every --slo objective: doubles from --search-min until a "
                    + "level fails, then bisects to --search-tolerance. Each level stops as soon as its verdict holds "
                    + "at 95%% confidence (a rate level only early when it fails). Writes <base>_search.json, .csv and .html.")
    String search;

    @Option(names = "--search-min", paramLabel = "LEVEL",
            description = "The first level of --search (a concurrency, or req/s). Default: 1.")
    Double searchMin;

    @Option(names = "--search-max", paramLabel = "LEVEL",
            description = "The highest level --search probes. Default: 1024 (concurrency), 1000 (req/s).")
    Double searchMax;

    @Option(names = "--search-tolerance", paramLabel = "PERCENT",
            description = "--search bisects until the bracket is within PERCENT of the capacity (concurrency: at "
                    + "least 1, so small concurrencies end exact). Default: 5.")
    Double searchTolerance;

    @Option(names = "--search-level-max", paramLabel = "N|Ts",
            description = "Longest run of one --search level: N requests (500) or a time (30s, 2m). Default: 60s.")
    String searchLevelMax;

    @Option(names = "--search-min-samples", paramLabel = "N",
            description = "Requests a --search level needs before it may stop early. Default: "
                    + SearchPlan.DEFAULT_MIN_SAMPLES + ".")
    Integer searchMinSamples;

    @Option(names = "--search-no-repeat",
            description = "Skip running the best --search level again at the end (the check for a server that "
                    + "degrades over time).")
    boolean searchNoRepeat;

    /** The objectives, or null without --slo. */
    SloObjectives objectives() {
        if (slo == null) return null;
        try {
            return SloObjectives.parse(slo);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--slo: " + e.getMessage());
        }
    }

    /** The search plan, or null without --search; {@code load} are the load flags it replaces. */
    SearchPlan resolve(SloObjectives objectives, LoadFlags load, String model) {
        if (search == null) {
            String stray = searchMin != null ? "--search-min" : searchMax != null ? "--search-max"
                    : searchTolerance != null ? "--search-tolerance" : searchLevelMax != null ? "--search-level-max"
                    : searchMinSamples != null ? "--search-min-samples" : searchNoRepeat ? "--search-no-repeat" : null;
            if (stray != null) throw new UsageException(stray + " applies to --search concurrency|rate");
            return null;
        }
        SearchPlan.Mode mode = switch (search.strip().toLowerCase(Locale.ROOT)) {
            case "concurrency" -> SearchPlan.Mode.CONCURRENCY;
            case "rate" -> SearchPlan.Mode.RATE;
            default -> throw new UsageException("--search '" + search + "': use concurrency or rate");
        };
        if (objectives == null || objectives.objectives().isEmpty()) {
            throw new UsageException("--search needs objectives: --slo ttft_p99<=500ms (or ttft<=500ms@99%, "
                    + "error_rate<=1%, ...)");
        }
        if (model.contains(",")) throw new UsageException("--search takes one --model (got '" + model + "')");
        List<String> replaced = new ArrayList<>();
        if (load.requestRate != null) replaced.add("--request-rate");
        if (load.concurrencySweep != null) replaced.add("--concurrency-sweep");
        if (load.rateSweep != null) replaced.add("--rate-sweep");
        if (load.duration != null) replaced.add("--duration");
        if (load.saturationGain != null) replaced.add("--saturation-gain");
        if (load.ttftJump != null) replaced.add("--ttft-jump");
        if (load.iterations != null || load.warmupIterations != null || load.iterationTime != null
                || load.forks != null) replaced.add("--iterations");
        if (mode == SearchPlan.Mode.CONCURRENCY) {
            if (load.arrival != null) replaced.add("--arrival");
            if (load.burstiness != null) replaced.add("--burstiness");
            if (load.arrivalSeed != null) replaced.add("--arrival-seed");
            if (load.maxConcurrency != null) replaced.add("--max-concurrency");
        }
        if (!replaced.isEmpty()) {
            throw new UsageException(String.join(", ", replaced) + (replaced.size() == 1 ? " does" : " do")
                    + " not apply with --search " + mode.key() + " (the search chooses the levels"
                    + (mode == SearchPlan.Mode.CONCURRENCY ? "; open-loop flags go with --search rate)" : ")"));
        }
        double min = searchMin == null ? 1 : searchMin;
        double max = searchMax == null ? (mode == SearchPlan.Mode.CONCURRENCY ? SearchPlan.DEFAULT_CONCURRENCY_MAX
                : SearchPlan.DEFAULT_RATE_MAX) : searchMax;
        if (!(min > 0) || !Double.isFinite(min)) throw new UsageException("--search-min (" + plain(min) + ") must be > 0");
        if (!(max >= min) || !Double.isFinite(max)) {
            throw new UsageException("--search-max (" + plain(max) + ") must be >= --search-min (" + plain(min) + ")");
        }
        if (mode == SearchPlan.Mode.CONCURRENCY && (min != Math.rint(min) || max != Math.rint(max))) {
            throw new UsageException("--search concurrency: --search-min and --search-max are whole numbers (got "
                    + plain(min) + " and " + plain(max) + ")");
        }
        double tolerance = searchTolerance == null ? SearchPlan.DEFAULT_TOLERANCE : searchTolerance / 100;
        if (!(tolerance > 0 && tolerance < 1)) {
            throw new UsageException("--search-tolerance (" + plain(100 * tolerance) + ") must be a percentage "
                    + "above 0 and below 100");
        }
        LevelLimit limit;
        try {
            limit = searchLevelMax == null ? SearchPlan.DEFAULT_LEVEL_MAX : LevelLimit.parse(searchLevelMax);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--search-level-max: " + e.getMessage());
        }
        int minSamples = searchMinSamples == null ? SearchPlan.DEFAULT_MIN_SAMPLES : searchMinSamples;
        CommonOptions.atLeast("--search-min-samples", minSamples, 1);
        Duration pause = SearchPlan.DEFAULT_PAUSE;
        if (load.sleepBetween != null) {
            if (!(load.sleepBetween >= 0) || !Double.isFinite(load.sleepBetween)) {
                throw new UsageException("--sleep-between (" + plain(load.sleepBetween) + ") must be >= 0");
            }
            pause = Duration.ofNanos(Math.round(load.sleepBetween * 1e9));
        }
        Warmup warmup = Warmup.NONE;
        if (load.warmupRequests != null && load.warmupDuration != null) {
            throw new UsageException("--warmup-requests and --warmup-duration are alternatives: give one");
        }
        if (load.warmupRequests != null) {
            CommonOptions.atLeast("--warmup-requests", load.warmupRequests, 1);
            warmup = Warmup.requests(load.warmupRequests);
        }
        if (load.warmupDuration != null) {
            if (!(load.warmupDuration > 0) || !Double.isFinite(load.warmupDuration)) {
                throw new UsageException("--warmup-duration (" + plain(load.warmupDuration) + ") must be > 0");
            }
            warmup = Warmup.duration(Duration.ofNanos(Math.round(load.warmupDuration * 1e9)));
        }
        OptionalInt cap = OptionalInt.empty();
        if (load.maxConcurrency != null) {
            CommonOptions.atLeast("--max-concurrency", load.maxConcurrency, 1);
            cap = OptionalInt.of(load.maxConcurrency);
        }
        return new SearchPlan(mode, objectives.objectives(), min, max, tolerance, limit, minSamples, pause,
                !searchNoRepeat, arrival(load.arrival, load.burstiness), load.arrivalSeed, cap, warmup);
    }

    private static Arrival arrival(String name, Double burstiness) {
        if (name == null) {
            if (burstiness != null) throw new UsageException("--burstiness needs --arrival gamma");
            return Arrival.poisson();
        }
        String n = name.strip().toLowerCase(Locale.ROOT);
        if (burstiness != null && !n.equals("gamma")) {
            throw new UsageException("--burstiness needs --arrival gamma (got --arrival " + name + ")");
        }
        return switch (n) {
            case "constant" -> Arrival.constant();
            case "poisson" -> Arrival.poisson();
            case "gamma" -> {
                if (burstiness == null || !(burstiness > 0) || !Double.isFinite(burstiness)) {
                    throw new UsageException("--arrival gamma needs --burstiness K > 0 (the gamma shape)");
                }
                yield Arrival.gamma(burstiness);
            }
            default -> throw new UsageException("unknown --arrival '" + name + "'; use constant, poisson or gamma");
        };
    }

    private static String plain(double value) {
        return io.llmperf4j.engine.load.LoadSettings.formatLevel(value);
    }
}
