package io.llmperf4j.report.search;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.llmperf4j.report.summary.SummaryDocument;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code <base>_search.json}: a capacity search's answer and every level it probed.
 *
 * @param schema            {@value #SCHEMA}
 * @param model             the model searched
 * @param simulated         true when the levels ran against llmperf4j's embedded simulated server, false against a
 *                          real endpoint (the model's name may be a real one's either way); null when not known: files
 *                          written before it, or a search whose writer was given none and found no level's summary
 *                          recording it ({@link SearchFiles#write})
 * @param search            "concurrency" or "rate"
 * @param unit              "concurrency", "req/s", or "sessions/s" for a rate search of sessions (--turns: a level
 *                          starts sessions at its rate; its requests_s still counts requests, turns)
 * @param objectives        the objectives, as written
 * @param outcome           "found", "below_range" (the first level failed) or "above_range" (no level up to the
 *                          maximum failed)
 * @param capacity          the highest load that met every objective; null below the range
 * @param capacityInterval  where the capacity lies: between the highest passing and the lowest failing level
 * @param bindingObjective  the objective that limits the capacity (failed just above it; nearest its limit when
 *                          nothing failed)
 * @param goodput           goodput at the capacity level
 * @param verdict           the verdict in one line, as printed
 * @param warnings          e.g. the best level failing when repeated (a server that degrades)
 * @param settings          the search's settings
 * @param levels            every probed level, in the order run
 */
public record SearchDocument(String schema, String model,
                             @JsonInclude(JsonInclude.Include.NON_NULL) Boolean simulated, String search,
                             String unit, List<String> objectives, String outcome, Double capacity,
                             Interval capacityInterval, String bindingObjective, Goodput goodput, String verdict,
                             List<String> warnings, Settings settings, List<Level> levels) {
    public static final String SCHEMA = "llmperf4j.search/1";

    public SearchDocument {
        objectives = List.copyOf(objectives);
        warnings = List.copyOf(warnings);
        levels = List.copyOf(levels);
    }

    /** A search whose endpoint is not given here (null {@code simulated}: its writer reads it from a level). */
    public SearchDocument(String schema, String model, String search, String unit, List<String> objectives,
                          String outcome, Double capacity, Interval capacityInterval, String bindingObjective,
                          Goodput goodput, String verdict, List<String> warnings, Settings settings,
                          List<Level> levels) {
        this(schema, model, null, search, unit, objectives, outcome, capacity, capacityInterval, bindingObjective,
                goodput, verdict, warnings, settings, levels);
    }

    /**
     * @param low        the highest passing level (null below the range)
     * @param high       the lowest failing level above it (null above the range)
     * @param confidence the confidence of the bracket: 1 − 0.05 per resolved end (Bonferroni), null when an end was
     *                   decided on a point estimate, or when the best level failed its final repeat (the bracket's
     *                   low end did not hold a second time: no confidence is claimed)
     */
    public record Interval(Double low, Double high, Double confidence) {
    }

    /**
     * @param slo               the per-request bounds counted ("TTFT <= 300 ms"), or null without any
     * @param requestsPerSecond good requests per second at the capacity level
     * @param goodFraction      good / recorded requests there
     */
    public record Goodput(String slo, Double requestsPerSecond, Double goodFraction) {
    }

    /**
     * @param start      the first level
     * @param max        the highest level the search may probe
     * @param tolerance  bisection ends when the bracket is within this fraction of the capacity
     * @param levelMax   each level's limit ("500 requests", "30 s")
     * @param minSamples requests before a level may stop early
     * @param confidence each level's interval confidence
     * @param load       the load's shape ("closed loop", "open loop, constant arrivals")
     */
    public record Settings(double start, double max, double tolerance, String levelMax, int minSamples,
                           double confidence, String load) {
    }

    /**
     * @param index            1-based, in run order
     * @param phase            "grow", "bisect" or "repeat" (the best level again, at the end)
     * @param load             the concurrency or rate
     * @param passed           every objective held
     * @param resolved         the verdict is backed by 95 % intervals (else point estimates)
     * @param stop             why the level ended: "resolved" (early), "limit" (--search-level-max), "ended"
     *                         (ran out of requests or time otherwise), "stopped" (Ctrl-C)
     * @param samples          requests judged (a request the level's end cancelled before it had missed anything is
     *                         left out, and none ending after an early verdict counts)
     * @param requestsCompleted requests that ended in the level's window (failures included), judged or not: those
     *                         {@code requestsS} and {@code goodputS} count; null when the level kept no run
     * @param durationS        measured seconds (a concurrency level's: to its last request that ended by itself, not
     *                         to the end of those its end cancelled; durationS, requestsS, outputTokS and goodputS
     *                         all use that window)
     * @param requestsS        completed requests per second
     * @param outputTokS       output tokens per second
     * @param goodputS         good requests per second
     * @param scheduledS       a rate level's drawn schedule, in {@code unit} (a Poisson or gamma draw is not its label:
     *                         the label is the mean it was drawn at); null for a concurrency level
     * @param sentS            the rate at which a rate level's arrivals went out (its sessions started), in
     *                         {@code unit}; null for a concurrency level
     * @param sendLagP99Ms     p99 of how late a rate level's requests went out after their scheduled instants; null
     *                         for a concurrency level
     * @param bindingObjective the failing objective furthest past its limit, else the one nearest it
     * @param objectives       each objective's figures
     * @param clientBehind     null, or, for a level that failed only by the client's send lag (an uncapped open
     *                         loop whose binding objective, judged from the actual send, passes), that objective so
     *                         judged: the client fell behind its schedule, the server did not fail
     * @param resultsDir       the level's folder, relative to the search's, or null
     * @param warnings         the level's own warnings (its summary's, REQUESTS_CANCELLED in the search's words: the
     *                         search ended the level); empty when none or when the level kept no summary
     */
    public record Level(int index, String phase, double load, boolean passed, boolean resolved, String stop,
                        int samples, Integer requestsCompleted, Double durationS, Double requestsS,
                        Double outputTokS, Double goodputS,
                        Double scheduledS, Double sentS, Double sendLagP99Ms, String bindingObjective,
                        List<Objective> objectives, Objective clientBehind, String resultsDir,
                        List<SummaryDocument.WarningJson> warnings) {
        public Level {
            objectives = List.copyOf(objectives);
            warnings = warnings == null ? List.of() : List.copyOf(warnings);
        }

        /** This level with {@code warning} after its own. */
        public Level withWarning(SummaryDocument.WarningJson warning) {
            List<SummaryDocument.WarningJson> more = new ArrayList<>(warnings);
            more.add(warning);
            return new Level(index, phase, load, passed, resolved, stop, samples, requestsCompleted, durationS,
                    requestsS, outputTokS, goodputS, scheduledS, sentS, sendLagP99Ms, bindingObjective, objectives,
                    clientBehind, resultsDir, more);
        }
    }

    /** This search with {@code levels} in place of its own. */
    public SearchDocument withLevels(List<Level> levels) {
        return new SearchDocument(schema, model, simulated, search, unit, objectives, outcome, capacity,
                capacityInterval, bindingObjective, goodput, verdict, warnings, settings, levels);
    }

    /** This search with {@code simulated} (its endpoint was the embedded simulated server) in place of its own. */
    public SearchDocument withSimulated(Boolean simulated) {
        return new SearchDocument(schema, model, simulated, search, unit, objectives, outcome, capacity,
                capacityInterval, bindingObjective, goodput, verdict, warnings, settings, levels);
    }

    /**
     * An {@link ObjectiveResult} as written; undefined numbers are null. {@code missInstants}: the misses counted as
     * independent events (an ITL percentile's misses sharing one instant count once; {@code misses} otherwise).
     */
    public record Objective(String objective, int samples, int misses, Double estimate, Double low, Double high,
                            double limit, String unit, boolean passed, boolean resolved, int missInstants) {
        /** Every miss an independent event. */
        public Objective(String objective, int samples, int misses, Double estimate, Double low, Double high,
                         double limit, String unit, boolean passed, boolean resolved) {
            this(objective, samples, misses, estimate, low, high, limit, unit, passed, resolved, misses);
        }

        public static Objective of(ObjectiveResult r) {
            return new Objective(r.objective(), r.samples(), r.misses(), num(r.estimate()), num(r.low()),
                    num(r.high()), r.limit(), r.unit(), r.passed(), r.resolved(), r.missEvents());
        }

        /** "8 misses in 2 instants", or empty when each miss was an event of its own. */
        public String missClustering() {
            return missInstants >= misses ? "" : misses + " misses in " + missInstants
                    + (missInstants == 1 ? " instant" : " instants");
        }
    }

    /** NaN and infinities are undefined: null. */
    public static Double num(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
