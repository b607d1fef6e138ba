package io.llmperf4j.engine.load;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.regression.OLSMultipleLinearRegression;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * Whether an open loop's service kept up with its offer, with the uncertainty a level's few requests leave: the
 * least-squares slope of each success's end against its intended send. A service that keeps up ends each request a
 * latency after its arrival, a latency that does not grow along the level, so the slope is 1 whatever the latencies'
 * spread (noise in the ends does not bias a least-squares slope); one that serves μ against an offer λ, queueing
 * behind a cap or inside the server, ends the i-th arrival near i / μ while it was due at i / λ: slope λ / μ. The
 * share of the offer served is 1 / slope, and its 95 % interval comes from the slope's.
 *
 * <p>The slope's interval allows for errors correlated along the schedule ({@link NeweyWest}: Newey-West's
 * standard error over the residuals in the order of intended send, Student t on its small-sample degrees of freedom).
 * Near capacity they are: a request that waits in a queue makes the next ones wait too, and a server that stalls
 * shifts a run of consecutive ends, so the ordinary least-squares interval, which assumes independent ends, was too
 * narrow there and called a level FELL_BEHIND or KEPT_UP with confidence it did not have (ends of AR(1) errors,
 * ρ = 0.8, 100 requests: the ordinary 95 % interval held the true share in 46 % of the levels, this one in 86 %).
 * With independent ends the two are about as wide (the robust one 10 % wider at the median, 100 requests).
 *
 * <p>Each answer's length (output tokens) is a second regressor: most of the ends' spread is decode time, which grows
 * with the answer, and taking it out narrows the interval (the QA's 10-s levels of llmperf's 150 ± 80 tokens: share
 * 87-110 % on the slope alone, 99.9-101.5 % with the length) without biasing the slope, since the lengths are drawn
 * independent of the schedule; where they are not (a dataset ordered by length), it keeps longer answers late in the
 * level from reading as a growing backlog. Without two distinct lengths the slope is fitted alone.
 *
 * <p>The first-to-last rate it replaces, (n − 1) / (last − first end), stretched the ends' span by the latencies'
 * spread (the first success a short answer, the last a long one), so a 10-s level of latencies 0.4-3.4 s read 86 % of
 * its offer with no backlog at all.
 *
 * <p>Arrivals that failed in a way that may be the service's (a 429, a 5xx, a timeout: {@link #failed}) were not
 * served at all, and their ends say nothing of a backlog: a server that answers 18 of 60 arrivals at once with 429
 * keeps its successes on time. So the rate the service sustained is the successes' share of the arrivals times the
 * share their ends kept up with ({@link #sustained}): the success rate against the scheduled rate, as AIPerf's
 * good_request_fraction counts errors in its denominator. The verdict ({@link #reading}) reads the sustained share.
 *
 * <p>Its interval carries both parts' sampling error: the success share s = k / N is a proportion of N arrivals (its
 * normal interval, half-width z·√(s(1 − s) / N)), the timing share A has the fit's interval, and the product sA takes
 * the delta method, sA ∓ √((A·h_s)² + (s·h_A)²), where h_A is A's distance to the end of its interval on that side
 * (the fit's interval is not symmetric: it comes from 1 / slope), the two parts taken as independent; the lower end
 * is held at 0. Scaling the fit's interval by s, as it was, left out the count's own error: 18 of 60 arrivals failed
 * read 66.3-70.4 % where the 42 successes alone could as well have been 35 or 49 (now 56.8-79.8 %). Without failures
 * s = 1 has no spread (the normal interval of a proportion of 1 has no width), and the interval is the fit's, as
 * before; Wilson's would have widened every level by failures it never saw. A share with no estimate (+∞: the slope
 * not above 0) gets the product of the two lower ends.
 *
 * @param share    1 / slope, the share of the offered rate the successes ended at (1 = kept up; above 1 is noise)
 * @param low      the share's 95 % interval, lower end
 * @param high     upper end; +∞ when the slope's interval reaches 0
 * @param requests the successes fitted
 * @param byLength the answers' lengths were a regressor
 * @param failed   the arrivals among the same (due early enough when the level was cut) that failed in a way that may
 *                 be the service's: capacity signs, the server gone, no known cause (configuration failures,
 *                 cancellations and lost workers are not counted)
 * @param failedAs what they were, most frequent first, in the console's words ({@link FailedAs}): "18x 429
 *                 [Retry-After: 3-7 s; not retried]" or "3x 503, 1x request timeout"; "" when none
 * @param actualSend the same arrivals fitted from their actual sends, with the send lag: an open loop's
 *                 ({@link ActualSend}); null otherwise
 */
public record KeepUp(double share, double low, double high, int requests, boolean byLength, int failed,
                     String failedAs, ActualSend actualSend) {

    /**
     * The same arrivals fitted with each success's end against its actual send, and the send lags of the arrivals
     * sent. In an open loop without a cap nothing makes an arrival wait for the server before it goes out, so its
     * send lag is the client's own (a pacer kept from the CPU): a level that fails from the intended sends and holds
     * from the actual ones failed by the client's lag alone, the capacity search's rule (bench-report's
     * ClientLagJudge, "client behind"; this module cannot depend on it, so the rule is restated in {@link #reading}).
     *
     * <p>Under a cap ({@code --max-concurrency}) an arrival that finds the cap full waits for a slot: that lag is
     * not the client's pacer but the cap's, and a level whose lag was mostly such waits ({@link CapWaits}) is
     * {@link Reading#AT_CAP}, neither the service's backlog nor the client's lag.
     *
     * @param fit             the fit from the actual sends (the same failed arrivals counted)
     * @param sendLagP90Millis p90 of the arrivals' send lags, ms
     * @param sendLagP99Millis p99, ms
     * @param heldAtCap       the cap when most of the arrivals' send lag was spent with that many requests in
     *                        flight ({@link CapWaits}); 0 when uncapped or the lag was the client's own
     */
    public record ActualSend(KeepUp fit, double sendLagP90Millis, double sendLagP99Millis, int heldAtCap) {
        public ActualSend {
            java.util.Objects.requireNonNull(fit, "fit");
            if (heldAtCap < 0) throw new IllegalArgumentException("cap: " + heldAtCap);
        }

        /** The lag was the client's own (no cap, or a cap that was not full). */
        public ActualSend(KeepUp fit, double sendLagP90Millis, double sendLagP99Millis) {
            this(fit, sendLagP90Millis, sendLagP99Millis, 0);
        }
    }

    /** The confidence of {@link #low}-{@link #high}. */
    public static final double CONFIDENCE = 0.95;

    /** The standard normal quantile of {@link #CONFIDENCE}'s two-sided interval, 1.96. */
    private static final double Z = new NormalDistribution().inverseCumulativeProbability(0.5 + CONFIDENCE / 2);

    /** What a level's figures say against a threshold share. */
    public enum Reading {
        /** the whole interval lies at or above the threshold */
        KEPT_UP,
        /** the whole interval lies below it: the level fell behind its offer */
        FELL_BEHIND,
        /** the interval straddles it: the level was too short (or too noisy) to tell */
        CANNOT_TELL,
        /**
         * the whole interval from the intended sends lies below the threshold, the whole interval from the actual
         * sends at or above it: the client fell behind its schedule, not the service ({@link ActualSend})
         */
        CLIENT_BEHIND,
        /**
         * as {@link #CLIENT_BEHIND}, of a capped level whose send lag was mostly waits for a slot with the cap full
         * ({@link ActualSend#heldAtCap}): the rate was the cap's (its requests in flight over their latency), so
         * the level says neither that the service fell behind nor that the client did
         */
        AT_CAP
    }

    public KeepUp {
        if (requests < 3) throw new IllegalArgumentException("a slope with an interval needs 3 requests: " + requests);
        if (failed < 0) throw new IllegalArgumentException("failed arrivals: " + failed);
        failedAs = failedAs == null ? "" : failedAs;
    }

    /** A fit without the fit from the actual sends. */
    public KeepUp(double share, double low, double high, int requests, boolean byLength, int failed,
                  String failedAs) {
        this(share, low, high, requests, byLength, failed, failedAs, null);
    }

    /** A fit of a level whose arrivals all succeeded (or whose failures are not the service's). */
    public KeepUp(double share, double low, double high, int requests, boolean byLength) {
        this(share, low, high, requests, byLength, 0, "");
    }

    /** This fit with {@code failed} arrivals that failed, worded {@code failedAs}. */
    public KeepUp withFailed(int failed, String failedAs) {
        return new KeepUp(share, low, high, requests, byLength, failed, failedAs, actualSend);
    }

    /** This fit with the same arrivals' fit from their actual sends ({@link ActualSend}). */
    public KeepUp withActualSend(ActualSend actualSend) {
        return new KeepUp(share, low, high, requests, byLength, failed, failedAs, actualSend);
    }

    /** The arrivals judged: the successes fitted and the failures among the same arrivals. */
    public int arrivals() {
        return requests + failed;
    }

    /** The successes' share of the arrivals judged (1 without failures). */
    public double succeeded() {
        return (double) requests / arrivals();
    }

    /** The share of the scheduled rate the service sustained: {@link #succeeded} times {@link #share}. */
    public double sustained() {
        return succeeded() * share;
    }

    /**
     * The 95 % half-width of {@link #succeeded}, a proportion of {@link #arrivals}: z·√(s(1 − s) / N), the normal
     * interval's; 0 without failures.
     */
    public double succeededHalfWidth() {
        double s = succeeded();
        return Z * Math.sqrt(s * (1 - s) / arrivals());
    }

    /** {@link #sustained}'s 95 % interval, lower end: the delta method on s·A (the class comment); at least 0. */
    public double sustainedLow() {
        if (failed == 0) return low;
        double s = succeeded();
        if (!Double.isFinite(share)) return Math.max(0, (s - succeededHalfWidth()) * low);
        return Math.max(0, sustained() - Math.hypot(share * succeededHalfWidth(), s * (share - low)));
    }

    /** Its upper end; +∞ when {@link #high} is. */
    public double sustainedHigh() {
        if (failed == 0 || !Double.isFinite(high)) return high;
        double s = succeeded();
        return sustained() + Math.hypot(share * succeededHalfWidth(), s * (high - share));
    }

    /** What this level says against {@code threshold} (0.95 for --saturation-gain 5), of its sustained share. */
    public Reading reading(double threshold) {
        if (sustainedHigh() < threshold) {
            // ClientLagJudge's rule: fails from the intended sends, holds from the actual ones; under a cap that
            // held the sends, the cap's
            if (actualSend == null || actualSend.fit().reading(threshold) != Reading.KEPT_UP) {
                return Reading.FELL_BEHIND;
            }
            return actualSend.heldAtCap() > 0 ? Reading.AT_CAP : Reading.CLIENT_BEHIND;
        }
        if (sustainedLow() >= threshold) return Reading.KEPT_UP;
        return Reading.CANNOT_TELL;
    }

    /** "69.0-71.1 %", the sustained share's interval in words; "69.0 % or more" when it has no upper end. */
    public String sustainedInterval() {
        return interval(sustainedLow(), sustainedHigh());
    }

    /** "88.1-103.4 %", the interval in words; "88.1 % or more" when it has no upper end. */
    public String interval() {
        return interval(low, high);
    }

    private static String interval(double low, double high) {
        return Double.isFinite(high) ? String.format(Locale.ROOT, "%.1f-%.1f %%", 100 * low, 100 * high)
                : String.format(Locale.ROOT, "%.1f %% or more", 100 * low);
    }

    /**
     * Fits the successes {@code ok} of an open loop's level; null with fewer than 3 to fit (or no spread of intended
     * sends).
     *
     * @param outputTokens each record's output tokens, as the run counts them
     * @param cut          the level ended with requests in flight or arrivals unsent (--timeout, a stop): a success
     *                     due late in it is one whose latency happened to be short, the others were cancelled, so
     *                     only those due early enough that a latency as long as the longest success's would have
     *                     ended before the last success did are fitted
     */
    public static KeepUp of(List<ScheduledRecord> ok, ToIntFunction<RequestRecord> outputTokens, boolean cut) {
        return of(ok, List.of(), outputTokens, cut);
    }

    /**
     * As {@link #of(List, ToIntFunction, boolean)}, with the arrivals that {@code failed} in a way that may be the
     * service's ({@link #failed}); of a cut level, only those due as early as the successes fitted count.
     */
    public static KeepUp of(List<ScheduledRecord> ok, List<ScheduledRecord> failed,
                            ToIntFunction<RequestRecord> outputTokens, boolean cut) {
        return of(ok, failed, outputTokens, cut, ScheduledRecord::intendedSendOffsetNanos);
    }

    /**
     * As {@link #of(List, List, ToIntFunction, boolean)}, with the fit from the actual sends and the arrivals' send
     * lags ({@link ActualSend}): for an uncapped open loop, whose lag is the client's own (a capped one's:
     * {@link #withActualSends(List, List, ToIntFunction, boolean, CapWaits)}).
     */
    public static KeepUp withActualSends(List<ScheduledRecord> ok, List<ScheduledRecord> failed,
                                         ToIntFunction<RequestRecord> outputTokens, boolean cut) {
        return withActualSends(ok, failed, outputTokens, cut, null);
    }

    /**
     * As {@link #withActualSends(List, List, ToIntFunction, boolean)}, of a level capped at {@code capWaits}' cap:
     * its lag is the cap's when it was mostly spent with the cap full ({@link ActualSend#heldAtCap}); null: no cap.
     */
    public static KeepUp withActualSends(List<ScheduledRecord> ok, List<ScheduledRecord> failed,
                                         ToIntFunction<RequestRecord> outputTokens, boolean cut, CapWaits capWaits) {
        KeepUp fit = of(ok, failed, outputTokens, cut);
        if (fit == null) return null;
        // from when each left the client: a delay in the client after its start stamp is the client's lag too
        KeepUp fromActual = of(ok, failed, outputTokens, cut, ScheduledRecord::leftClientOffsetNanos);
        if (fromActual == null) return fit;
        List<ScheduledRecord> sent = java.util.stream.Stream.concat(ok.stream(), failed.stream())
                .filter(r -> r.arrivalIndex() >= 0) // not the arrivals a lost worker never sent
                .toList();
        boolean atCap = capWaits != null && capWaits.heldMostOfTheLag(sent);
        // held at the cap by a service that slowed as the cap filled (or with no sign it had room): the service may
        // be the limit, so the level is judged as before the cap was told apart (fell behind, BEHIND_SCHEDULE)
        if (atCap && capWaits.serviceMayHaveSlowed(ok)) return fit;
        long[] lags = sent.stream().mapToLong(r -> Math.max(0, r.sendLagNanos())).toArray();
        int heldAtCap = atCap ? capWaits.cap() : 0;
        return fit.withActualSend(new ActualSend(fromActual, Percentiles.of(lags, 90) / 1e6,
                Percentiles.of(lags, 99) / 1e6, heldAtCap));
    }

    private static KeepUp of(List<ScheduledRecord> ok, List<ScheduledRecord> failed,
                             ToIntFunction<RequestRecord> outputTokens, boolean cut,
                             ToLongFunction<ScheduledRecord> sentAt) {
        KeepUp fit = fitEnds(ok, outputTokens, cut, sentAt);
        if (fit == null || failed.isEmpty()) return fit;
        long until = cut ? dueUntil(ok) : Long.MAX_VALUE;
        List<ScheduledRecord> counted = failed.stream().filter(r -> r.intendedSendOffsetNanos() <= until).toList();
        return counted.isEmpty() ? fit : fit.withFailed(counted.size(), describe(counted));
    }

    /**
     * An arrival due at {@code intendedNanos} that a distributed run's load worker never sent because it left the
     * cluster: not served, so it counts against the keep-up verdict as a failed arrival does ({@link #describe}
     * words it "not sent, its load worker lost").
     */
    public static ScheduledRecord notSentByLostWorker(long intendedNanos) {
        RequestRecord never = new RequestRecord(-1, "", null, 0, RequestRecord.NEVER, RequestRecord.NEVER,
                RequestRecord.NEVER, 0, null, "", 0, 0, -1, null, null, null,
                new Failure(FailureKind.LOST, -1, FailedAs.NOT_SENT_LOST_WORKER));
        return new ScheduledRecord(never, -1, intendedNanos, intendedNanos, false);
    }

    /**
     * "18x 429 [Retry-After: 3-7 s; not retried]", "3x 503, 1x request timeout": the failures by HTTP status or kind,
     * most frequent first, in the console's words ({@link FailedAs}).
     */
    private static String describe(List<ScheduledRecord> failed) {
        FailedAs words = new FailedAs();
        for (ScheduledRecord r : failed) words.add(r.record().failure());
        return words.toString();
    }

    /** The fit of the successes' ends against {@code sentAt}, their intended sends or their actual ones. */
    private static KeepUp fitEnds(List<ScheduledRecord> ok, ToIntFunction<RequestRecord> outputTokens, boolean cut,
                                  ToLongFunction<ScheduledRecord> sentAt) {
        List<ScheduledRecord> fitted = new ArrayList<>(cut ? uncensored(ok) : ok);
        // the residuals' order is the schedule's: the errors are correlated between neighbours in it
        fitted.sort(Comparator.comparingLong(ScheduledRecord::intendedSendOffsetNanos)
                .thenComparingInt(ScheduledRecord::arrivalIndex));
        int n = fitted.size();
        if (n < 3) return null;
        double origin = fitted.stream().mapToLong(sentAt).min().orElseThrow();
        double[] due = new double[n];
        double[] end = new double[n];
        double[] tokens = new double[n];
        for (int i = 0; i < n; i++) {
            ScheduledRecord r = fitted.get(i);
            due[i] = (sentAt.applyAsLong(r) - origin) / 1e9; // seconds, from the first: well-scaled columns
            end[i] = (r.endOffsetNanos() - origin) / 1e9;
            tokens[i] = Math.max(0, outputTokens.applyAsInt(r.record()));
        }
        if (!distinct(due)) return null;
        if (n >= 4 && distinct(tokens)) {
            KeepUp both = fit(due, end, tokens);
            if (both != null) return both;
        }
        return fit(due, end, null);
    }

    /** The successes due no later than the last success's end minus the longest latency from the intended send. */
    private static List<ScheduledRecord> uncensored(List<ScheduledRecord> ok) {
        long until = dueUntil(ok);
        List<ScheduledRecord> early = new ArrayList<>();
        for (ScheduledRecord r : ok) {
            if (r.intendedSendOffsetNanos() <= until) early.add(r);
        }
        return early;
    }

    /** The last intended send a cut level fits: the last success's end minus the longest latency. */
    private static long dueUntil(List<ScheduledRecord> ok) {
        long lastEnd = Long.MIN_VALUE;
        long longest = 0;
        for (ScheduledRecord r : ok) {
            lastEnd = Math.max(lastEnd, r.endOffsetNanos());
            longest = Math.max(longest, r.endOffsetNanos() - r.intendedSendOffsetNanos());
        }
        return lastEnd - longest;
    }

    /** 1 / slope; +∞ for a slope of 0 or below (ends that did not advance with the arrivals: noise, not a share). */
    private static double share(double slope) {
        return slope > 0 ? 1 / slope : Double.POSITIVE_INFINITY;
    }

    private static boolean distinct(double[] values) {
        for (double v : values) {
            if (v != values[0]) return true;
        }
        return false;
    }

    /**
     * end = a + slope · due (+ c · tokens), the rows in the order of intended send; null when the design is singular
     * (one intended send, collinear).
     */
    private static KeepUp fit(double[] due, double[] end, double[] tokens) {
        int n = due.length;
        double[][] x = new double[n][];
        double[][] design = new double[n][]; // x with the intercept's column, as the robust variance needs it
        for (int i = 0; i < n; i++) {
            x[i] = tokens == null ? new double[] {due[i]} : new double[] {due[i], tokens[i]};
            design[i] = tokens == null ? new double[] {1, due[i]} : new double[] {1, due[i], tokens[i]};
        }
        OLSMultipleLinearRegression ols = new OLSMultipleLinearRegression(1e-10); // a singular design throws
        double slope;
        NeweyWest robust;
        try {
            ols.newSampleData(end, x);
            slope = ols.estimateRegressionParameters()[1];
            robust = NeweyWest.of(design, ols.estimateResiduals(), 1);
        } catch (IllegalArgumentException e) { // SingularMatrixException among them
            return null;
        }
        if (robust == null || !Double.isFinite(slope) || !Double.isFinite(robust.variance())) return null;
        double half = new TDistribution(robust.degreesOfFreedom()).inverseCumulativeProbability(0.5 + CONFIDENCE / 2)
                * Math.sqrt(robust.variance());
        return new KeepUp(share(slope), share(slope + half), share(slope - half), n, tokens != null);
    }
}
