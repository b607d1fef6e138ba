package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.Warmup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * token-benchmark's load after validation: {@link LoadFlags} and the closed-loop flags turned into the engine's
 * {@link LoadProfile}, warmup, harness and saturation rules, plus the models to compare. Every problem is a
 * {@link UsageException} naming the flag and the rule, raised before anything is started or sent.
 *
 * @param active         false: no load flag and one model, so llmperf's plain closed loop runs as before
 * @param models         the --model list (one, or several to compare)
 * @param kind           the shape of the load
 * @param profile        the engine's load profile (stop conditions per level included)
 * @param warmup         warmup per level, excluded from every result
 * @param harness        JMH-style iterations, or null
 * @param rules          the sweep verdict's thresholds
 * @param pause          sleep between sweep levels and between models
 * @param maxConnections connections the client may open (the highest concurrency, or the open loop's cap)
 * @param arrivalSeed    the open-loop schedule's seed
 * @param seedGiven      --arrival-seed was given; otherwise the workload's seed replaces it ({@link #seededBy})
 */
record LoadPlan(boolean active, List<String> models, Kind kind, LoadProfile profile, Warmup warmup,
                HarnessSettings harness, SaturationRules rules, Duration pause, int maxConnections,
                long arrivalSeed, boolean seedGiven) {

    /** The shapes of load. */
    enum Kind {
        CLOSED_LOOP, OPEN_LOOP, CONCURRENCY_SWEEP, RATE_SWEEP;

        boolean sweep() {
            return this == CONCURRENCY_SWEEP || this == RATE_SWEEP;
        }

        boolean open() {
            return this == OPEN_LOOP || this == RATE_SWEEP;
        }
    }

    /** The default sleep between sweep levels: the seed guide's 5 s. */
    static final double DEFAULT_SLEEP_BETWEEN_SECONDS = 5;
    /** Connections an open loop without --max-concurrency may open. */
    static final int UNCAPPED_OPEN_LOOP_CONNECTIONS = ClientConfig.DEFAULT_MAX_CONNECTIONS;
    /**
     * Closed loops send the prompts in order, whichever slot is free: every prompt once per level (with
     * --max-num-completed-requests of them), so what was sent does not depend on timing.
     */
    static final ClosedLoopSettings.PromptOrder PROMPT_ORDER = ClosedLoopSettings.PromptOrder.SEND_ORDER;
    /** Longest duration a flag accepts, in seconds (a year): keeps the arithmetic far from overflow. */
    private static final double MAX_SECONDS = 365 * 24 * 3600.0;

    static final LoadPlan NONE = new LoadPlan(false, List.of(), Kind.CLOSED_LOOP, null, Warmup.NONE, null,
            SaturationRules.DEFAULT, Duration.ZERO, 1, 0, false);

    /** More than one model: a comparison. */
    boolean comparison() {
        return models.size() > 1;
    }

    /** More than one level per model. */
    boolean multiLevel() {
        return kind.sweep();
    }

    /** "concurrency" or "rate". */
    String levelName() {
        return profile.levelName();
    }

    /** The unit of a level, for tables and files: "concurrency" or "req/s". */
    String loadUnit() {
        return kind.open() ? "req/s" : "concurrency";
    }

    /** How a level is named in tables and messages: "concurrency 8", "rate 2 req/s". */
    static String label(LoadSettings level) {
        String value = LoadSettings.formatLevel(level.level());
        return level.levelName().equals("rate") ? "rate " + value + " req/s" : "concurrency " + value;
    }

    /** The folder name of a level in a sweep: "concurrency_8", "rate_2", "rate_0.5". */
    static String folder(LoadSettings level) {
        return level.levelName() + "_" + LoadSettings.formatLevel(level.level());
    }

    static LoadPlan resolve(LoadFlags f, TokenBenchmarkOptions options) {
        return resolve(f, options, false);
    }

    /**
     * @param plainClosedLoopToo true: an active plan (one closed-loop level) even without load flags, for a run
     *                           that always goes through the engine's {@code Benchmark} (embeddings)
     */
    static LoadPlan resolve(LoadFlags f, TokenBenchmarkOptions options, boolean plainClosedLoopToo) {
        CommonOptions common = options.common();
        List<String> models = splitModels(common.model());
        boolean anyFlag = f.requestRate != null || f.arrival != null || f.burstiness != null || f.arrivalSeed != null
                || f.maxConcurrency != null || f.concurrencySweep != null || f.rateSweep != null
                || f.sleepBetween != null || f.saturationGain != null || f.ttftJump != null || f.duration != null
                || f.warmupRequests != null || f.warmupDuration != null || f.iterations != null
                || f.warmupIterations != null || f.iterationTime != null || f.forks != null;
        if (!anyFlag && models.size() == 1 && !plainClosedLoopToo) {
            return NONE;
        }

        int loads = (f.requestRate != null ? 1 : 0) + (f.concurrencySweep != null ? 1 : 0)
                + (f.rateSweep != null ? 1 : 0);
        if (loads > 1) {
            throw new UsageException("--request-rate, --rate-sweep and --concurrency-sweep are alternatives: "
                    + "give one of them");
        }
        Kind kind = f.requestRate != null ? Kind.OPEN_LOOP : f.rateSweep != null ? Kind.RATE_SWEEP
                : f.concurrencySweep != null ? Kind.CONCURRENCY_SWEEP : Kind.CLOSED_LOOP;
        String openOnly = " applies to an open loop (--request-rate or --rate-sweep)";
        String sweepOnly = " applies to a sweep (--concurrency-sweep or --rate-sweep)";

        // open loop
        if (f.requestRate != null) {
            positiveFinite("--request-rate", f.requestRate);
        }
        if (!kind.open()) {
            rejectIf(f.arrival != null, "--arrival" + openOnly);
            rejectIf(f.burstiness != null, "--burstiness" + openOnly + " with --arrival gamma");
            rejectIf(f.arrivalSeed != null, "--arrival-seed" + openOnly);
            rejectIf(f.maxConcurrency != null, "--max-concurrency" + openOnly
                    + "; a closed loop's concurrency is --num-concurrent-requests");
            rejectIf(f.duration != null, "--duration" + openOnly + "; a closed loop runs "
                    + "--max-num-completed-requests requests (per level)");
        }
        Arrival arrival = arrival(f.arrival, f.burstiness);
        if (f.maxConcurrency != null) {
            CommonOptions.atLeast("--max-concurrency", f.maxConcurrency, 1);
        }
        long arrivalSeed = f.arrivalSeed != null ? f.arrivalSeed : OpenLoopSettings.DEFAULT_SEED; // see seededBy

        // sweeps
        List<Integer> concurrencies = f.concurrencySweep == null ? null : concurrencies(f.concurrencySweep);
        List<Double> rates = f.rateSweep == null ? null : rates(f.rateSweep);
        rejectIf(!kind.sweep() && f.saturationGain != null, "--saturation-gain" + sweepOnly);
        rejectIf(!kind.sweep() && f.ttftJump != null, "--ttft-jump" + sweepOnly);
        rejectIf(!kind.sweep() && models.size() == 1 && f.sleepBetween != null,
                "--sleep-between applies between sweep levels (--concurrency-sweep, --rate-sweep) and between "
                        + "models (--model a,b)");
        SaturationRules rules = SaturationRules.DEFAULT;
        if (f.saturationGain != null) {
            finite("--saturation-gain", f.saturationGain);
            rules = rules.withMinThroughputGain(f.saturationGain / 100.0);
        }
        if (f.ttftJump != null) {
            finite("--ttft-jump", f.ttftJump);
            if (!(f.ttftJump > 1)) {
                throw new UsageException("--ttft-jump (" + plain(f.ttftJump) + ") must be > 1");
            }
            rules = rules.withTtftJumpFactor(f.ttftJump);
        }
        Duration pause = seconds("--sleep-between",
                f.sleepBetween == null ? DEFAULT_SLEEP_BETWEEN_SECONDS : f.sleepBetween, true);

        // harness
        HarnessSettings harness = null;
        if (f.iterations == null) {
            rejectIf(f.warmupIterations != null, "--warmup-iterations needs --iterations");
            rejectIf(f.iterationTime != null, "--iteration-time needs --iterations");
            rejectIf(f.forks != null, "--forks needs --iterations");
        } else {
            CommonOptions.atLeast("--iterations", f.iterations, 1);
            int warmupIterations = f.warmupIterations == null ? HarnessSettings.DEFAULT_WARMUP_ITERATIONS
                    : f.warmupIterations;
            CommonOptions.atLeast("--warmup-iterations", warmupIterations, 0);
            Duration time = f.iterationTime == null ? HarnessSettings.DEFAULT_MEASUREMENT_TIME
                    : seconds("--iteration-time", f.iterationTime, false);
            int forks = f.forks == null ? HarnessSettings.DEFAULT_FORKS : f.forks;
            CommonOptions.atLeast("--forks", forks, 1);
            String replaced = " cannot be combined with --iterations: each fork runs continuous load for its "
                    + "iterations (--warmup-iterations replace warmup)";
            rejectIf(f.duration != null, "--duration" + replaced);
            rejectIf(f.warmupRequests != null, "--warmup-requests" + replaced);
            rejectIf(f.warmupDuration != null, "--warmup-duration" + replaced);
            harness = HarnessSettings.of(warmupIterations, time, f.iterations, time, forks);
        }

        // warmup
        rejectIf(f.warmupRequests != null && f.warmupDuration != null,
                "--warmup-requests and --warmup-duration are alternatives: give one of them");
        Warmup warmup = Warmup.NONE;
        if (f.warmupRequests != null) {
            CommonOptions.atLeast("--warmup-requests", f.warmupRequests, 0);
            warmup = Warmup.requests(f.warmupRequests);
        } else if (f.warmupDuration != null) {
            warmup = Warmup.duration(seconds("--warmup-duration", f.warmupDuration, true));
        }

        // stop conditions
        Duration duration = f.duration == null ? null : seconds("--duration", f.duration, false);
        int requests = common.maxNumCompletedRequests();
        Duration timeout = Duration.ofSeconds(common.timeoutSeconds());
        if (duration != null) {
            Duration needed = duration.plus(warmup instanceof Warmup.ForDuration d ? d.duration() : Duration.ZERO);
            if (f.given("--timeout")) {
                if (timeout.compareTo(needed) <= 0) {
                    throw new UsageException("--timeout (" + common.timeoutSeconds() + ") must be longer than "
                            + "--duration (" + plain(f.duration) + ")"
                            + (needed.equals(duration) ? "" : " plus --warmup-duration") + ": it ends each level, "
                            + "waiting for the requests in flight included");
                }
            } else {
                timeout = needed.plus(timeout); // the default --timeout becomes the allowance to drain
            }
        }
        OptionalInt openLoopRequests = duration == null || f.given("--max-num-completed-requests")
                ? OptionalInt.of(requests) : OptionalInt.empty();

        LoadProfile profile;
        int maxConnections;
        try {
            switch (kind) {
                case CLOSED_LOOP -> {
                    profile = LoadProfile.closedLoop(common.numConcurrentRequests()).withMaxRequests(requests)
                            .withTimeout(timeout).withPromptOrder(PROMPT_ORDER);
                    maxConnections = common.numConcurrentRequests();
                }
                case CONCURRENCY_SWEEP -> {
                    profile = LoadProfile.concurrencySweep(concurrencies).withRequestsPerLevel(requests)
                            .withTimeoutPerLevel(timeout).withPause(pause).withPromptOrder(PROMPT_ORDER);
                    maxConnections = concurrencies.stream().mapToInt(Integer::intValue).max().orElseThrow();
                }
                case OPEN_LOOP -> {
                    profile = new LoadProfile.OpenLoop(f.requestRate, arrival, arrivalSeed, openLoopRequests,
                            Optional.ofNullable(duration), timeout, optional(f.maxConcurrency));
                    maxConnections = f.maxConcurrency != null ? f.maxConcurrency : UNCAPPED_OPEN_LOOP_CONNECTIONS;
                }
                case RATE_SWEEP -> {
                    profile = new LoadProfile.RateSweep(rates, arrival, arrivalSeed, openLoopRequests,
                            Optional.ofNullable(duration), timeout, optional(f.maxConcurrency), pause);
                    maxConnections = f.maxConcurrency != null ? f.maxConcurrency : UNCAPPED_OPEN_LOOP_CONNECTIONS;
                }
                default -> throw new AssertionError(kind);
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException("load: " + e.getMessage());
        }
        return new LoadPlan(true, models, kind, profile, warmup, harness, rules, pause, maxConnections,
                arrivalSeed, f.arrivalSeed != null);
    }

    /** The measured requests a level is expected to record (for progress), or 0 when unknown. */
    static int expectedRequests(LoadSettings level, int workloadSize) {
        if (level instanceof ClosedLoopSettings c) {
            return c.maxCompleted().orElse(workloadSize);
        }
        if (level instanceof OpenLoopSettings o) {
            try {
                return o.schedule().measuredArrivals();
            } catch (RuntimeException e) {
                return 0; // the runner reports what is wrong with the schedule
            }
        }
        return 0;
    }

    /** Without --arrival-seed, the open loop's schedule takes the workload's seed (--seed): one seed repeats a run. */
    LoadPlan seededBy(long workloadSeed) {
        if (seedGiven || !kind.open()) {
            return this;
        }
        LoadProfile seeded = profile instanceof LoadProfile.OpenLoop o ? o.withSeed(workloadSeed)
                : ((LoadProfile.RateSweep) profile).withSeed(workloadSeed);
        return new LoadPlan(active, models, kind, seeded, warmup, harness, rules, pause, maxConnections,
                workloadSeed, false);
    }

    /** One line for humans: the load, its stop conditions and warmup. */
    String describe() {
        StringBuilder b = new StringBuilder();
        switch (kind) {
            case CLOSED_LOOP -> {
                LoadProfile.ClosedLoop c = (LoadProfile.ClosedLoop) profile;
                b.append("closed loop, concurrency ").append(c.concurrency());
            }
            case CONCURRENCY_SWEEP -> b.append("concurrency sweep ")
                    .append(join(((LoadProfile.ConcurrencySweep) profile).concurrencies().stream()
                            .map(Integer::doubleValue).toList()));
            case OPEN_LOOP -> {
                LoadProfile.OpenLoop o = (LoadProfile.OpenLoop) profile;
                b.append("open loop, ").append(LoadSettings.formatLevel(o.requestsPerSecond())).append(" req/s");
            }
            case RATE_SWEEP -> b.append("rate sweep ")
                    .append(join(((LoadProfile.RateSweep) profile).rates())).append(" req/s");
            default -> throw new AssertionError(kind);
        }
        if (kind.open()) {
            LoadSettings first = profile.levels(Warmup.NONE).get(0);
            OpenLoopSettings o = (OpenLoopSettings) first;
            b.append(", ").append(o.arrival()).append(" arrivals (seed ").append(arrivalSeed).append(')');
            o.maxConcurrency().ifPresent(c -> b.append(", at most ").append(c).append(" in flight"));
            o.duration().ifPresent(d -> b.append(", ").append(secondsText(d)).append(" of arrivals"));
            o.maxRequests().ifPresent(n -> b.append(", ").append(n).append(" arrivals"));
            if (multiLevel()) b.append(" per level");
        } else if (harness == null) {
            b.append(", ").append(((ClosedLoopSettings) profile.levels(Warmup.NONE).get(0))
                    .maxCompleted().orElse(0)).append(" requests").append(multiLevel() ? " per level" : "");
        }
        if (harness != null) {
            b.append("; ").append(harness.warmup().count()).append(" warmup + ").append(harness.measurement().count())
                    .append(" measurement iterations of ").append(harness.measurement().timeText()).append(", ")
                    .append(harness.forks()).append(harness.forks() == 1 ? " fork" : " forks");
        }
        if (!(warmup instanceof Warmup.None)) {
            b.append("; warmup ").append(warmupText()).append(multiLevel() ? " per level" : "");
        }
        return b.toString();
    }

    /** "5 requests", "10 s". */
    String warmupText() {
        if (warmup instanceof Warmup.ForRequests r) return r.count() + (r.count() == 1 ? " request" : " requests");
        if (warmup instanceof Warmup.ForDuration d) return secondsText(d.duration());
        return "none";
    }

    private static String secondsText(Duration d) {
        return LoadSettings.formatLevel(d.toNanos() / 1e9) + " s";
    }

    private static String join(List<Double> levels) {
        List<String> parts = new ArrayList<>();
        for (double l : levels) parts.add(LoadSettings.formatLevel(l));
        return String.join(",", parts);
    }

    /** --model: one id, or several separated by commas (a comparison); blanks around ids are dropped. */
    static List<String> splitModels(String model) {
        if (!model.contains(",")) {
            return List.of(model);
        }
        LinkedHashSet<String> models = new LinkedHashSet<>();
        for (String part : model.split(",", -1)) {
            String id = part.strip();
            if (id.isEmpty()) {
                throw new UsageException("--model '" + model + "' has an empty model id; separate ids with commas, "
                        + "e.g. --model a,b");
            }
            if (!models.add(id)) {
                throw new UsageException("--model '" + model + "' names '" + id + "' twice");
            }
        }
        return List.copyOf(models);
    }

    private static Arrival arrival(String name, Double burstiness) {
        if (burstiness != null) {
            positiveFinite("--burstiness", burstiness);
        }
        if (name == null) {
            rejectIf(burstiness != null, "--burstiness needs --arrival gamma");
            return Arrival.poisson();
        }
        switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "constant" -> {
                rejectIf(burstiness != null, "--burstiness needs --arrival gamma (got --arrival " + name + ")");
                return Arrival.constant();
            }
            case "poisson" -> {
                rejectIf(burstiness != null, "--burstiness needs --arrival gamma (got --arrival " + name + ")");
                return Arrival.poisson();
            }
            case "gamma" -> {
                if (burstiness == null) {
                    throw new UsageException("--arrival gamma needs --burstiness K (the gamma shape: < 1 burstier "
                            + "than Poisson, > 1 smoother)");
                }
                return Arrival.gamma(burstiness);
            }
            default -> throw new UsageException("unknown --arrival '" + name + "'; use constant, poisson or gamma");
        }
    }

    private static List<Integer> concurrencies(String text) {
        List<Integer> levels = new ArrayList<>();
        for (String item : items("--concurrency-sweep", text, "1,5,10,20,50")) {
            int value;
            try {
                value = Integer.parseInt(item);
            } catch (NumberFormatException e) {
                throw new UsageException("--concurrency-sweep: '" + item + "' is not a whole number");
            }
            if (value < 1) {
                throw new UsageException("--concurrency-sweep: every concurrency must be >= 1 (got " + value + ")");
            }
            increasing("--concurrency-sweep", levels.isEmpty() ? null : levels.get(levels.size() - 1), value);
            levels.add(value);
        }
        return levels;
    }

    private static List<Double> rates(String text) {
        List<Double> levels = new ArrayList<>();
        for (String item : items("--rate-sweep", text, "1,2,4,8")) {
            double value;
            try {
                value = Double.parseDouble(item);
            } catch (NumberFormatException e) {
                throw new UsageException("--rate-sweep: '" + item + "' is not a number");
            }
            if (!(value > 0) || Double.isInfinite(value)) {
                throw new UsageException("--rate-sweep: every rate must be > 0 and finite (got " + item + ")");
            }
            increasing("--rate-sweep", levels.isEmpty() ? null : levels.get(levels.size() - 1), value);
            levels.add(value);
        }
        return levels;
    }

    private static List<String> items(String option, String text, String example) {
        List<String> items = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String item = part.strip();
            if (!item.isEmpty()) {
                items.add(item);
            } else if (!text.isBlank()) {
                throw new UsageException(option + " '" + text + "' has an empty item; list levels separated by "
                        + "commas, e.g. " + example);
            }
        }
        if (items.isEmpty()) {
            throw new UsageException(option + " needs at least one level, e.g. " + option + " " + example);
        }
        return items;
    }

    /** The verdict compares each level with the one before: levels must grow. */
    private static void increasing(String option, Number previous, Number value) {
        if (previous != null && value.doubleValue() <= previous.doubleValue()) {
            throw new UsageException(option + ": levels must increase (got " + value + " after " + previous + ")");
        }
    }

    private static Duration seconds(String option, double value, boolean zeroAllowed) {
        finite(option, value);
        if (zeroAllowed ? value < 0 : !(value > 0)) {
            throw new UsageException(option + " (" + plain(value) + ") must be " + (zeroAllowed ? ">= 0" : "> 0"));
        }
        if (value > MAX_SECONDS) {
            throw new UsageException(option + " (" + plain(value) + ") must be <= " + plain(MAX_SECONDS)
                    + " seconds");
        }
        return Duration.ofNanos(Math.round(value * 1e9));
    }

    private static void positiveFinite(String option, double value) {
        finite(option, value);
        if (!(value > 0)) {
            throw new UsageException(option + " (" + plain(value) + ") must be > 0");
        }
    }

    private static void finite(String option, double value) {
        if (!Double.isFinite(value)) {
            throw new UsageException(option + " (" + value + ") must be a finite number");
        }
    }

    private static void rejectIf(boolean condition, String message) {
        if (condition) {
            throw new UsageException(message);
        }
    }

    private static OptionalInt optional(Integer value) {
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }

    /** 2 for 2.0, 0.5 for 0.5: as the user typed it. */
    private static String plain(double value) {
        return LoadSettings.formatLevel(value);
    }
}
