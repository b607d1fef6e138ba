package io.llmperf4j.run;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.harness.HarnessRunner;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.report.summary.Plural;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A token benchmark's load: the engine's {@link LoadProfile} (llmperf's closed loop, an open loop, a sweep), warmup,
 * JMH-style harness and saturation rules, plus the models to compare. The CLI builds it from its load flags (and
 * checks them); {@link #plain} is llmperf's own closed loop.
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
 * @param sessions       the workload is multi-turn sessions (--turns): an open loop's arrivals and rate are sessions,
 *                       its request budget counts turns
 */
public record LoadPlan(boolean active, List<String> models, Kind kind, LoadProfile profile, Warmup warmup,
                HarnessSettings harness, SaturationRules rules, Duration pause, int maxConnections,
                long arrivalSeed, boolean seedGiven, boolean sessions) {

    /** A plan of single requests (no sessions). */
    public LoadPlan(boolean active, List<String> models, Kind kind, LoadProfile profile, Warmup warmup,
                    HarnessSettings harness, SaturationRules rules, Duration pause, int maxConnections,
                    long arrivalSeed, boolean seedGiven) {
        this(active, models, kind, profile, warmup, harness, rules, pause, maxConnections, arrivalSeed, seedGiven,
                false);
    }

    /** The shapes of load. */
    public enum Kind {
        CLOSED_LOOP, OPEN_LOOP, CONCURRENCY_SWEEP, RATE_SWEEP;

        public boolean sweep() {
            return this == CONCURRENCY_SWEEP || this == RATE_SWEEP;
        }

        public boolean open() {
            return this == OPEN_LOOP || this == RATE_SWEEP;
        }
    }

    /** The default sleep between sweep levels: the seed guide's 5 s. */
    public static final double DEFAULT_SLEEP_BETWEEN_SECONDS = 5;
    /** Connections an open loop without --max-concurrency may open. */
    public static final int UNCAPPED_OPEN_LOOP_CONNECTIONS = ClientConfig.DEFAULT_MAX_CONNECTIONS;
    /**
     * Closed loops send the prompts in order, whichever slot is free: every prompt once per level (with
     * --max-num-completed-requests of them), so what was sent does not depend on timing.
     */
    public static final ClosedLoopSettings.PromptOrder PROMPT_ORDER = ClosedLoopSettings.PromptOrder.SEND_ORDER;

    /**
     * llmperf's plain closed loop: {@code concurrency} requests in flight, {@code requests} requests, the run ended
     * at {@code timeout}; inactive, so it runs, reports and writes exactly as llmperf's token benchmark.
     */
    public static LoadPlan plain(String model, int concurrency, int requests, Duration timeout) {
        LoadProfile profile = LoadProfile.closedLoop(concurrency).withMaxRequests(requests).withTimeout(timeout)
                .withPromptOrder(PROMPT_ORDER);
        return new LoadPlan(false, List.of(model), Kind.CLOSED_LOOP, profile, Warmup.NONE, null,
                SaturationRules.DEFAULT, Duration.ZERO, concurrency, OpenLoopSettings.DEFAULT_SEED, false);
    }

    /** More than one model: a comparison. */
    public boolean comparison() {
        return models.size() > 1;
    }

    /** More than one level per model. */
    public boolean multiLevel() {
        return kind.sweep();
    }

    /** "concurrency" or "rate". */
    public String levelName() {
        return profile.levelName();
    }

    /** The unit of a level, for tables and files: "concurrency" or "req/s". */
    public String loadUnit() {
        return kind.open() ? "req/s" : "concurrency";
    }

    /**
     * The unit a level's load is named in for people (the sweep's table header, its --slo answer): {@link #loadUnit},
     * but "sessions/s" for a rate of sessions (--turns), whose arrivals are session starts, as {@link #describe} says.
     * The sweep files' {@code load_unit} is this too (the page, compare and iteration files read "sessions/s" as a
     * rate); {@link #loadUnit} stays the load's kind.
     */
    public String levelUnit() {
        return kind.open() && sessions ? "sessions/s" : loadUnit();
    }

    /**
     * How this plan's level is named for people: {@link #label}, but "rate 2 sessions/s" for a rate of sessions
     * (--turns), in {@link #levelUnit}: the per-level "done" line, the progress line, the --slo lines.
     */
    public String levelLabel(LoadSettings level) {
        return LoadSettings.label(level.levelName(), level.level(), levelUnit());
    }

    /** How a level is named in tables and messages: "concurrency 8", "rate 2 req/s". */
    public static String label(LoadSettings level) {
        return LoadSettings.label(level.levelName(), level.level());
    }

    /** The folder name of a level in a sweep: "concurrency_8", "rate_2", "rate_0.5". */
    public static String folder(LoadSettings level) {
        return level.levelName() + "_" + LoadSettings.formatLevel(level.level());
    }

    /** The measured requests a level is expected to record (for progress), or 0 when unknown. */
    public static int expectedRequests(LoadSettings level, int workloadSize) {
        if (level instanceof ClosedLoopSettings c) {
            int max = c.maxCompleted().orElse(workloadSize);
            return max == Integer.MAX_VALUE ? 0 : max; // a level limited by time only (a capacity search)
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
    public LoadPlan seededBy(long workloadSeed) {
        if (seedGiven || !kind.open()) {
            return this;
        }
        LoadProfile seeded = profile instanceof LoadProfile.OpenLoop o ? o.withSeed(workloadSeed)
                : ((LoadProfile.RateSweep) profile).withSeed(workloadSeed);
        return new LoadPlan(active, models, kind, seeded, warmup, harness, rules, pause, maxConnections,
                workloadSeed, false, sessions);
    }

    /** One line for humans: the load, its stop conditions and warmup. */
    public String describe() {
        if (kind == Kind.OPEN_LOOP && ((LoadProfile.OpenLoop) profile).arrival() instanceof Arrival.Trace t) {
            OpenLoopSettings level = (OpenLoopSettings) profile.levels(Warmup.NONE).get(0);
            if (!sessions) return level.describe(); // its trace, no seed nor drawn arrivals
            // its sessions' starts (and single requests) are the arrivals: the rate counts them, later turns go on
            // their delays; arrivals at one instant have no rate (the nominal one is a stand-in)
            return "trace replay of " + t.details() + ", " + t.startsAtOneInstant().orElse("mean "
                    + Arrival.Trace.significant(level.requestsPerSecond()) + " " + t.rateUnit())
                    + level.maxConcurrency().stream()
                    .mapToObj(c -> ", at most " + Plural.of(c, "request") + " in flight").findFirst().orElse("");
        }
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
                b.append("open loop, ").append(LoadSettings.formatLevel(o.requestsPerSecond()))
                        .append(sessions ? " sessions/s" : " req/s");
            }
            case RATE_SWEEP -> b.append("rate sweep ")
                    .append(join(((LoadProfile.RateSweep) profile).rates())).append(sessions ? " sessions/s" : " req/s");
            default -> throw new AssertionError(kind);
        }
        if (kind.open()) {
            LoadSettings first = profile.levels(Warmup.NONE).get(0);
            OpenLoopSettings o = (OpenLoopSettings) first;
            b.append(", ").append(o.arrival()).append(sessions ? " session arrivals (seed " : " arrivals (seed ")
                    .append(arrivalSeed).append(')');
            o.maxConcurrency().ifPresent(c -> b.append(", at most ")
                    .append(sessions ? Plural.of(c, "request") : Integer.toString(c)).append(" in flight"));
            if (harness != null) {
                b.append(", ").append(forkArrivals());
            } else {
                o.duration().ifPresent(d -> b.append(", ").append(secondsText(d)).append(" of arrivals"));
                // with sessions the budget counts requests (turns), one arrival per session
                o.maxRequests().ifPresent(n -> b.append(", ").append(n).append(sessions ? " requests" : " arrivals"));
                if (multiLevel()) b.append(" per level");
            }
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

    /**
     * With iterations, an open loop's arrivals: each fork sends its level's schedule over all its windows (warmup
     * iterations included), not the level's request budget, which the iterations replace: "53 arrivals in 9 s per
     * fork"; a sweep, each level's: "9 s of arrivals per fork and level (N at 3 req/s, M at 6 req/s)".
     */
    private String forkArrivals() {
        Duration forkTime = harness.forkTime();
        List<String> counts = new ArrayList<>();
        for (LoadSettings level : profile.levels(Warmup.NONE)) {
            int n = ((OpenLoopSettings) HarnessRunner.forkLoad(level, forkTime)).schedule().size();
            counts.add(multiLevel() ? n + " at " + LoadSettings.formatLevel(level.level()) + (sessions ? " sessions/s"
                    : " req/s") : Integer.toString(n));
        }
        String unit = sessions ? " session arrivals" : " arrivals";
        return multiLevel() ? secondsText(forkTime) + " of" + unit + " per fork and level (" + String.join(", ", counts)
                + ")" : counts.get(0) + unit + " in " + secondsText(forkTime) + " per fork";
    }

    /** "5 requests", "10 s"; with iterations, their warmup iterations: "2 iterations of 10 s per fork". */
    public String warmupText() {
        if (harness != null && harness.warmup().count() > 0) {
            int n = harness.warmup().count();
            return n + (n == 1 ? " iteration of " : " iterations of ") + harness.warmup().timeText() + " per fork";
        }
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
}
