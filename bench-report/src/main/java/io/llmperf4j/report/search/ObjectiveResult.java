package io.llmperf4j.report.search;

/**
 * One objective judged at one level.
 *
 * @param objective the objective as written ("ttft_p99<=300ms")
 * @param samples   the samples judged (requests; inter-token gaps for ITL)
 * @param misses    samples that missed (over the bound, not good, or failed for the error rate)
 * @param estimate  the point estimate: the percentile in ms, the attainment or the error rate as a fraction; NaN
 *                  without samples
 * @param low       the 95 % interval's lower end (NaN when there is none yet)
 * @param high      its upper end (NaN, or infinite, when there is none yet)
 * @param limit     the objective's bound, in the estimate's unit
 * @param unit      "ms" or "fraction"
 * @param passed    whether the objective holds at this level (by the interval when resolved, else by the estimate)
 * @param resolved  whether the interval lies wholly on one side of the limit
 * @param missEvents the misses counted as independent events: an ITL percentile's misses that share one instant
 *                  across streams (a stall) count once, and its interval is over as many samples as that leaves
 *                  independent; {@code misses} otherwise
 */
public record ObjectiveResult(String objective, int samples, int misses, double estimate, double low, double high,
                              double limit, String unit, boolean passed, boolean resolved, int missEvents) {

    /** Every miss an independent event. */
    public ObjectiveResult(String objective, int samples, int misses, double estimate, double low, double high,
                           double limit, String unit, boolean passed, boolean resolved) {
        this(objective, samples, misses, estimate, low, high, limit, unit, passed, resolved, misses);
    }

    /** "8 misses in 2 instants": misses that shared instants, or empty when each was an event of its own. */
    public String missClustering() {
        return missEvents >= misses ? "" : misses + " misses in " + missEvents + (missEvents == 1 ? " instant"
                : " instants");
    }

    /**
     * How far past its limit the estimate is (&gt; 1 misses, ≤ 1 holds): the ratio of estimate to limit for an upper
     * bound, of the miss rates for an attainment.
     */
    public double pressure() {
        if (Double.isNaN(estimate)) return Double.POSITIVE_INFINITY;
        if (unit.equals("ms")) return estimate / limit;
        if (objective.startsWith("error_rate")) return limit == 0 ? (estimate == 0 ? 0 : Double.POSITIVE_INFINITY)
                : estimate / limit;
        double allowed = 1 - limit;
        double missed = 1 - estimate;
        return allowed == 0 ? (missed == 0 ? 0 : Double.POSITIVE_INFINITY) : missed / allowed;
    }
}
