package io.llmperf4j.cli;

import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.load.Arrival;
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
import java.util.function.Predicate;
import io.llmperf4j.run.LoadPlan;
import io.llmperf4j.run.CommonSettings;

/**
 * token-benchmark's load flags checked and turned into the run's {@link LoadPlan}: {@link LoadFlags} and the
 * closed-loop flags become the engine's load profile, warmup, harness and saturation rules, plus the models to
 * compare. Every problem is a {@link UsageException} naming the flag and the rule, raised before anything is started
 * or sent. Without load flags and with one model, the plan is llmperf's plain closed loop ({@link LoadPlan#plain}).
 */
final class LoadOptions {
    /** Longest duration a flag accepts, in seconds (a year): keeps the arithmetic far from overflow. */
    private static final double MAX_SECONDS = 365 * 24 * 3600.0;

    private LoadOptions() {
    }

    /**
     * @param plainClosedLoopToo true: an active plan (one closed-loop level) even without load flags, for a run
     *                           that always goes through the engine's {@code Benchmark} (embeddings)
     * @param given              whether an option (e.g. "--timeout") was given on the command line, not defaulted
     */
    static LoadPlan resolve(LoadFlags f, CommonSettings common, boolean plainClosedLoopToo, Predicate<String> given) {
        List<String> models = splitModels(common.model());
        boolean trace = given.test("--trace"); // an open loop on the trace's timestamps (TraceReplay.plan)
        if (trace) TraceReplay.refuseFlags(f, given);
        boolean anyFlag = f.requestRate != null || f.arrival != null || f.burstiness != null || f.arrivalSeed != null
                || f.maxConcurrency != null || f.concurrencySweep != null || f.rateSweep != null
                || f.sleepBetween != null || f.saturationGain != null || f.ttftJump != null || f.duration != null
                || f.warmupRequests != null || f.warmupDuration != null || f.iterations != null
                || f.warmupIterations != null || f.iterationTime != null || f.forks != null;
        if (!anyFlag && models.size() == 1 && !plainClosedLoopToo) {
            return LoadPlan.plain(common.model(), common.numConcurrentRequests(), common.maxNumCompletedRequests(),
                    Duration.ofSeconds(common.timeoutSeconds()));
        }

        int loads = (f.requestRate != null ? 1 : 0) + (f.concurrencySweep != null ? 1 : 0)
                + (f.rateSweep != null ? 1 : 0);
        if (loads > 1) {
            throw new UsageException("--request-rate, --rate-sweep and --concurrency-sweep are alternatives: "
                    + "give one of them");
        }
        LoadPlan.Kind kind = f.requestRate != null ? LoadPlan.Kind.OPEN_LOOP
                : f.rateSweep != null ? LoadPlan.Kind.RATE_SWEEP
                : f.concurrencySweep != null ? LoadPlan.Kind.CONCURRENCY_SWEEP : LoadPlan.Kind.CLOSED_LOOP;
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
            rejectIf(f.maxConcurrency != null && !trace, "--max-concurrency" + openOnly
                    + " or a trace replay (--trace); a closed loop's concurrency is --num-concurrent-requests");
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
                f.sleepBetween == null ? LoadPlan.DEFAULT_SLEEP_BETWEEN_SECONDS : f.sleepBetween, true);

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
        if (given.test("--turns")) { // a session's turns are played by the session runner, which has no warmup
            String option = f.warmupRequests != null ? "--warmup-requests" : "--warmup-duration";
            rejectIf(f.warmupRequests != null || f.warmupDuration != null, option + " cannot be combined with "
                    + "--turns: warmup does not apply to multi-turn sessions (leave it out; to warm the server, run "
                    + "once before the measured run)");
        }
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
            if (given.test("--timeout")) {
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
        OptionalInt openLoopRequests = duration == null || given.test("--max-num-completed-requests")
                ? OptionalInt.of(requests) : OptionalInt.empty();

        LoadProfile profile;
        int maxConnections;
        try {
            switch (kind) {
                case CLOSED_LOOP -> {
                    profile = LoadProfile.closedLoop(common.numConcurrentRequests()).withMaxRequests(requests)
                            .withTimeout(timeout).withPromptOrder(LoadPlan.PROMPT_ORDER);
                    maxConnections = common.numConcurrentRequests();
                }
                case CONCURRENCY_SWEEP -> {
                    profile = LoadProfile.concurrencySweep(concurrencies).withRequestsPerLevel(requests)
                            .withTimeoutPerLevel(timeout).withPause(pause).withPromptOrder(LoadPlan.PROMPT_ORDER);
                    maxConnections = concurrencies.stream().mapToInt(Integer::intValue).max().orElseThrow();
                }
                case OPEN_LOOP -> {
                    profile = new LoadProfile.OpenLoop(f.requestRate, arrival, arrivalSeed, openLoopRequests,
                            Optional.ofNullable(duration), timeout, optional(f.maxConcurrency));
                    maxConnections = f.maxConcurrency != null ? f.maxConcurrency
                            : LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS;
                }
                case RATE_SWEEP -> {
                    profile = new LoadProfile.RateSweep(rates, arrival, arrivalSeed, openLoopRequests,
                            Optional.ofNullable(duration), timeout, optional(f.maxConcurrency), pause);
                    maxConnections = f.maxConcurrency != null ? f.maxConcurrency
                            : LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS;
                }
                default -> throw new AssertionError(kind);
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException("load: " + e.getMessage());
        }
        return new LoadPlan(true, models, kind, profile, warmup, harness, rules, pause, maxConnections,
                arrivalSeed, f.arrivalSeed != null, given.test("--turns"));
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
