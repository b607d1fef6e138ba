package io.llmperf4j.engine.load;

import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.ServerGone;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * One load level in the figures the seed script prints per level and its sweep table uses; the input of
 * {@link SaturationVerdict#evaluate}. Throughput and latencies count successful measured requests only (llmperf
 * leaves errored requests out the same way). Latencies count from the intended send, so in an open loop they
 * include queueing; in a closed loop intended and actual sends coincide. Percentiles are llmperf4j's one definition,
 * {@link Percentiles} (numpy's linear interpolation over the exact nanoseconds, then converted to ms), so a closed-loop
 * level's row agrees to the last digit with the same level's {@code _llmperf4j_summary.json}; NaN when nothing
 * succeeded.
 *
 * @param level                 the concurrency or the rate
 * @param successes             measured requests that succeeded
 * @param total                 measured requests recorded (successes, failures and cancellations)
 * @param outputTokensPerSecond system output throughput: output tokens of successes / measured window
 * @param requestsPerSecond     successes / measured window (QPS)
 * @param failuresByCause       the failures by what they point at ({@link FailureCause}); empty when the causes are
 *                              unknown (a harness level's counts), then every failure is counted as
 *                              {@link FailureCause#OTHER}
 * @param scheduledRequestsPerSecond  an open loop's drawn schedule, (arrivals − 1) / (last − first intended send);
 *                                    of a cut schedule ({@code arrivalsNotSent} &gt; 0), of its arrivals sent up to
 *                                    its last success's (those after it had no chance to end before the cut); NaN
 *                                    for a closed loop, sessions, or fewer than 2 arrivals
 * @param serverGone            the server going away ({@link ServerGone}: after how many successes, or before any),
 *                              the reading the run's summary words; null when no failure is
 *                              {@link FailureCause#SERVER_UNAVAILABLE}
 * @param answered              the server answered at least one of the level's requests (response headers, content
 *                              or a success: {@link ServerGone.Request#answeredAtEpochMicros()})
 * @param refusedUnanswered     connections that failed ({@link FailureKind#CONNECT_FAILED}) before the server
 *                              answered in this level: the configuration, read alone ({@link FailureCause#CONFIGURATION}
 *                              among {@code failuresByCause}); the server going away when it had answered an earlier
 *                              level of the same sweep ({@link SaturationVerdict} reads them so)
 * @param arrivalsNotSent       an open loop's measured arrivals never sent because the run ended first (--timeout, a
 *                              stop): its schedule was cut, so {@code scheduledRequestsPerSecond} covers the arrivals
 *                              sent up to its last success's, the part before the cut that its successes can be set
 *                              against; 0 otherwise
 * @param keepUp                whether the service kept up with the offer, with its interval ({@link KeepUp}: the
 *                              slope of the successes' ends against their intended sends), what the rate sweep's
 *                              verdict and BEHIND_SCHEDULE judge (of an open loop, with its fit from the actual sends:
 *                              {@link KeepUp.ActualSend}); null where the scheduled rate is NaN or fewer than 3
 *                              successes could be fitted
 * @param held                  a closed loop's throughput while it held its concurrency, before its drain
 *                              ({@link HeldConcurrency}), what the sweep's saturation rule compares; null for an open
 *                              loop, sessions, or a level without such a window
 * @param failedAsByCause       for each cause among {@code failuresByCause} whose failures include one that asked the
 *                              client to come back (a 429, a Retry-After), what they were in the console's words
 *                              ({@link FailedAs}: "18x 429 [Retry-After: 3-7 s; not retried], 2x 503"): the client
 *                              never retries, and a line counting those failures says so as the console's does; the
 *                              other causes are absent (their words stay the causes' alone)
 * @param ttftP90FromSendMillis an uncapped open loop's TTFT p90 from each request's actual send (its start stamp), the
 *                              figure the TTFT red line compares ({@link #redLineTtftP90Millis}): {@code ttftP90Millis}
 *                              counts from the intended send, so it carries the client's own send lag (a pacer kept
 *                              from the CPU), which is no latency of the service's; NaN for a closed loop (the two
 *                              are the same), a capped open loop (an arrival's wait for a slot is latency a user
 *                              waits), sessions, and figures given as such
 */
public record LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                           double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                           double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                           double scheduledRequestsPerSecond, ServerGone serverGone, boolean answered, int refusedUnanswered, int arrivalsNotSent,
                           KeepUp keepUp, HeldConcurrency held, Map<FailureCause, String> failedAsByCause,
                           double ttftP90FromSendMillis) {

    /**
     * The failures that may be the service's: capacity signs, the server gone away, failures of no known cause. The
     * sweep's verdict counts them against it, and an open loop's keep-up fit counts them as arrivals not served.
     */
    public static final Set<FailureCause> SERVICE_FAILURES = Collections.unmodifiableSet(
            EnumSet.of(FailureCause.CAPACITY, FailureCause.OTHER, FailureCause.SERVER_UNAVAILABLE));

    public LevelSummary {
        if (successes < 0 || total < successes) {
            throw new IllegalArgumentException("successes (" + successes + ") must be in [0, total (" + total + ")]");
        }
        EnumMap<FailureCause, Integer> causes = new EnumMap<>(FailureCause.class);
        if (failuresByCause != null) failuresByCause.forEach((c, n) -> { if (n > 0) causes.put(c, n); });
        int known = causes.values().stream().mapToInt(Integer::intValue).sum();
        if (known > total - successes) {
            throw new IllegalArgumentException("failures by cause (" + known + ") exceed the failures ("
                    + (total - successes) + ")");
        }
        if (known < total - successes) causes.merge(FailureCause.OTHER, total - successes - known, Integer::sum);
        failuresByCause = Collections.unmodifiableMap(causes);
        if (refusedUnanswered < 0 || refusedUnanswered > causes.getOrDefault(FailureCause.CONFIGURATION, 0)) {
            throw new IllegalArgumentException("refused connections (" + refusedUnanswered + ") must be in [0, the "
                    + "configuration failures (" + causes.getOrDefault(FailureCause.CONFIGURATION, 0) + ")]");
        }
        if (arrivalsNotSent < 0) throw new IllegalArgumentException("arrivals not sent: " + arrivalsNotSent);
        EnumMap<FailureCause, String> words = new EnumMap<>(FailureCause.class);
        if (failedAsByCause != null) {
            failedAsByCause.forEach((c, w) -> {
                if (causes.containsKey(c) && w != null && !w.isEmpty()) words.put(c, w);
            });
        }
        failedAsByCause = Collections.unmodifiableMap(words);
    }

    /** A level without a TTFT from the actual send apart from its row's ({@link #ttftP90FromSendMillis}: NaN). */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                        double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                        double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                        double scheduledRequestsPerSecond, ServerGone serverGone, boolean answered,
                        int refusedUnanswered, int arrivalsNotSent, KeepUp keepUp, HeldConcurrency held,
                        Map<FailureCause, String> failedAsByCause) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond, serverGone, answered,
                refusedUnanswered, arrivalsNotSent, keepUp, held, failedAsByCause, Double.NaN);
    }

    /** A level whose failures' words are the causes' alone (figures given as such, or no 429 nor Retry-After). */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                        double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                        double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                        double scheduledRequestsPerSecond, ServerGone serverGone, boolean answered,
                        int refusedUnanswered, int arrivalsNotSent, KeepUp keepUp, HeldConcurrency held) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                serverGone, answered, refusedUnanswered, arrivalsNotSent, keepUp, held, Map.of());
    }

    /** A level without a held-concurrency window (an open loop, or figures given as such). */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                        double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                        double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                        double scheduledRequestsPerSecond, ServerGone serverGone, boolean answered,
                        int refusedUnanswered, int arrivalsNotSent, KeepUp keepUp) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                serverGone, answered, refusedUnanswered, arrivalsNotSent, keepUp, null);
    }

    /** A level without a keep-up fit (a closed loop, or rates given as figures). */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                        double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                        double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                        double scheduledRequestsPerSecond,
                        ServerGone serverGone, boolean answered, int refusedUnanswered, int arrivalsNotSent) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                serverGone, answered, refusedUnanswered, arrivalsNotSent, null);
    }

    /** A level whose schedule, if any, ran to its last arrival. */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                        double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                        double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                        double scheduledRequestsPerSecond,
                        ServerGone serverGone, boolean answered, int refusedUnanswered) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                serverGone, answered, refusedUnanswered, 0);
    }

    /**
     * A level whose refused connections are not told apart: none counted as refused before an answer; answered when
     * a request succeeded or the server went away during it.
     */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                        double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                        double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                        double scheduledRequestsPerSecond,
                        ServerGone serverGone) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                serverGone, successes > 0 || serverGone != null, 0);
    }

    /** A level without the server going away. */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                        double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                        double e2eP90Millis, Map<FailureCause, Integer> failuresByCause,
                        double scheduledRequestsPerSecond) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                null);
    }

    /** A level whose failures' causes are unknown (all {@link FailureCause#OTHER}), closed-loop rates (NaN). */
    public LevelSummary(double level, int successes, int total, double outputTokensPerSecond, double requestsPerSecond,
                        double ttftP50Millis, double ttftP90Millis, double e2eP50Millis, double e2eP90Millis) {
        this(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis, ttftP90Millis,
                e2eP50Millis, e2eP90Millis, Map.of(), Double.NaN);
    }

    /** This level with its failures' causes. */
    public LevelSummary withFailuresByCause(Map<FailureCause, Integer> causes) {
        return new LevelSummary(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis,
                ttftP90Millis, e2eP50Millis, e2eP90Millis, causes, scheduledRequestsPerSecond,
                serverGone, answered,
                causes == null ? 0 : Math.min(refusedUnanswered, causes.getOrDefault(FailureCause.CONFIGURATION, 0)),
                arrivalsNotSent, keepUp, held, failedAsByCause, ttftP90FromSendMillis);
    }

    /**
     * This level read after an earlier level of its sweep had been answered: its {@link #refusedUnanswered} connections
     * are the server going away ({@link FailureCause#SERVER_UNAVAILABLE}), no longer the configuration.
     */
    public LevelSummary withServerGoneBefore() {
        if (refusedUnanswered == 0) return this;
        Map<FailureCause, Integer> causes = new EnumMap<>(failuresByCause);
        causes.merge(FailureCause.CONFIGURATION, -refusedUnanswered, Integer::sum);
        causes.merge(FailureCause.SERVER_UNAVAILABLE, refusedUnanswered, Integer::sum);
        return new LevelSummary(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis,
                ttftP90Millis, e2eP50Millis, e2eP90Millis, causes, scheduledRequestsPerSecond,
                serverGone, answered, 0, arrivalsNotSent, keepUp, held, failedAsByCause, ttftP90FromSendMillis);
    }

    /** This level with an open loop's scheduled rate. */
    public LevelSummary withScheduledRate(double scheduled) {
        return new LevelSummary(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis,
                ttftP90Millis, e2eP50Millis, e2eP90Millis, failuresByCause, scheduled, serverGone,
                answered, refusedUnanswered, arrivalsNotSent, keepUp, held, failedAsByCause, ttftP90FromSendMillis);
    }

    /** This level with its keep-up fit ({@link KeepUp}; null: none). */
    public LevelSummary withKeepUp(KeepUp fit) {
        return new LevelSummary(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis,
                ttftP90Millis, e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                serverGone, answered, refusedUnanswered, arrivalsNotSent, fit, held, failedAsByCause,
                ttftP90FromSendMillis);
    }

    /** This level with its held-concurrency window ({@link HeldConcurrency}; null: none). */
    public LevelSummary withHeld(HeldConcurrency window) {
        return new LevelSummary(level, successes, total, outputTokensPerSecond, requestsPerSecond, ttftP50Millis,
                ttftP90Millis, e2eP50Millis, e2eP90Millis, failuresByCause, scheduledRequestsPerSecond,
                serverGone, answered, refusedUnanswered, arrivalsNotSent, keepUp, window, failedAsByCause,
                ttftP90FromSendMillis);
    }

    /**
     * The output tok/s the saturation rule compares: while the level held its concurrency ({@link #held}) when
     * known, else the level's own.
     */
    public double judgedOutputTokensPerSecond() {
        return held != null && Double.isFinite(held.tokensPerSecond()) ? held.tokensPerSecond()
                : outputTokensPerSecond;
    }

    /** Failures of {@code cause}. */
    public int failures(FailureCause cause) {
        return failuresByCause.getOrDefault(cause, 0);
    }

    /**
     * Summarises a run's measured records counting output tokens by llmperf4j's one policy, as the report's
     * summary does.
     */
    public static LevelSummary of(LoadResult result, OutputTokenPolicy policy) {
        return of(result, policy::outputTokensOrZero, HeldConcurrency.of(result, policy));
    }

    /** Summarises a run's measured records. */
    public static LevelSummary of(LoadResult result, ToIntFunction<RequestRecord> outputTokens) {
        return of(result, outputTokens, HeldConcurrency.of(result, outputTokens));
    }

    private static LevelSummary of(LoadResult result, ToIntFunction<RequestRecord> outputTokens,
                                   HeldConcurrency held) {
        List<ScheduledRecord> measured = result.measuredTimeline();
        List<ScheduledRecord> ok = measured.stream().filter(r -> r.record().succeeded()).toList();
        long tokens = 0;
        for (ScheduledRecord r : ok) tokens += Math.max(0, outputTokens.applyAsInt(r.record()));
        double seconds = result.durationNanos() / 1e9;
        long[] ttft = nanos(ok, ScheduledRecord::ttftFromIntendedNanos);
        long[] e2e = nanos(ok, ScheduledRecord::e2eFromIntendedNanos);
        List<RequestRecord> records = measured.stream().map(ScheduledRecord::record).toList();
        List<FailureCause> causeOf = FailureCause.of(records);
        Map<FailureCause, Integer> causes = new EnumMap<>(FailureCause.class);
        Map<FailureCause, FailedAs> failedAs = new EnumMap<>(FailureCause.class);
        int refusedUnanswered = 0;
        for (int i = 0; i < records.size(); i++) {
            FailureCause cause = causeOf.get(i);
            if (cause == null) continue;
            causes.merge(cause, 1, Integer::sum);
            failedAs.computeIfAbsent(cause, c -> new FailedAs()).add(records.get(i).failure());
            if (cause == FailureCause.CONFIGURATION && records.get(i).failure().kind() == FailureKind.CONNECT_FAILED) {
                refusedUnanswered++;
            }
        }
        double scheduled = Double.NaN;
        double ttftFromSend = Double.NaN;
        int notSent = 0;
        KeepUp keepUp = null;
        // a session schedule's arrivals are sessions, its records turns: no like-for-like rate
        if (result instanceof OpenLoopResult open
                && measured.stream().noneMatch(r -> r.record().tags().sessionId() != null)) {
            notSent = Math.max(0, open.measuredArrivals() - measured.size());
            long[] unsentOfLost = open.unsentOfLostWorkersNanos();
            // arrivals a lost load worker never sent are not a cut: they were due, and not served
            int cutNotSent = Math.max(0, notSent - unsentOfLost.length);
            // a cut schedule: its successes came from its first arrivals (sent in order), so they are set against
            // those arrivals' rate, not the whole schedule's (a Poisson draw's first part differs), up to the last
            // success's: those after it were still in flight at the cut (cancelled) or never sent, so had no chance
            scheduled = cutNotSent > 0 ? intendedRate(measured, ok) : open.scheduledRequestsPerSecond();
            // a level that ended with requests in flight (cancelled) or arrivals unsent: its late successes are the
            // short ones, so the fit keeps to those due early enough to have ended whatever their latency
            // arrivals that failed in a way that may be the service's were not served: they count against it
            List<ScheduledRecord> failed = new ArrayList<>();
            for (int i = 0; i < records.size(); i++) {
                if (SERVICE_FAILURES.contains(causeOf.get(i))) failed.add(measured.get(i));
            }
            for (long due : unsentOfLost) failed.add(KeepUp.notSentByLostWorker(due));
            boolean cutFit = cutNotSent > 0 || causes.containsKey(FailureCause.CANCELLED);
            // the level is fitted from its actual sends too: a level only the send lag failed reads CLIENT_BEHIND
            // (uncapped, or a cap that was not full: the client's own lag) or AT_CAP (a capped level whose lag was
            // mostly waits for a slot with the cap full: the cap's), not FELL_BEHIND
            CapWaits capWaits = open.settings().maxConcurrency().isEmpty() ? null
                    : CapWaits.of(open.settings().maxConcurrency().getAsInt(), open.timeline());
            keepUp = Double.isNaN(scheduled) ? null
                    : KeepUp.withActualSends(ok, failed, outputTokens, cutFit, capWaits);
            // uncapped, nothing makes an arrival wait for the service before it goes out: its send lag is the
            // client's own, so the red line reads TTFT from the actual send (a cap's wait is a user's wait)
            if (open.settings().maxConcurrency().isEmpty()) {
                ttftFromSend = millis(nanos(ok, r -> r.record().ttftNanos()), 90);
            }
        }
        return new LevelSummary(result.settings().level(), ok.size(), measured.size(),
                seconds > 0 ? tokens / seconds : Double.NaN, seconds > 0 ? ok.size() / seconds : Double.NaN,
                millis(ttft, 50), millis(ttft, 90), millis(e2e, 50), millis(e2e, 90), causes, scheduled,
                ServerGone.of(records).orElse(null), FailureCause.servedSince(records) != FailureCause.NEVER_SERVED,
                refusedUnanswered, notSent, keepUp, held, askedToComeBack(failedAs), ttftFromSend);
    }

    /**
     * The TTFT p90 the red line compares: from the actual send where the row's, from the intended send, carries the
     * client's own send lag (an uncapped open loop: {@link #ttftP90FromSendMillis}), else the row's.
     */
    public double redLineTtftP90Millis() {
        return Double.isNaN(ttftP90FromSendMillis) ? ttftP90Millis : ttftP90FromSendMillis;
    }

    /**
     * The row's TTFT p90 (from the intended send) over the one from the actual send, when the client's own send lag
     * moved it by more than {@value #CLIENT_LAG_SHARE_PERCENT} %: the level's figures carry the client's lag; NaN
     * otherwise (or without the figure from the actual send).
     */
    public double ttftP90ClientLagFactor() {
        if (!(ttftP90FromSendMillis > 0) || !Double.isFinite(ttftP90Millis)) return Double.NaN;
        double factor = ttftP90Millis / ttftP90FromSendMillis;
        return factor > 1 + CLIENT_LAG_SHARE_PERCENT / 100.0 ? factor : Double.NaN;
    }

    /** A row's TTFT p90 this much (percent) above the one from the actual send carries the client's lag. */
    public static final int CLIENT_LAG_SHARE_PERCENT = 10;

    /** The words of the causes whose failures asked the client to come back ({@link #failedAsByCause}). */
    private static Map<FailureCause, String> askedToComeBack(Map<FailureCause, FailedAs> failedAs) {
        Map<FailureCause, String> words = new EnumMap<>(FailureCause.class);
        failedAs.forEach((cause, w) -> { if (w.askedToComeBack()) words.put(cause, w.toString()); });
        return words;
    }

    /**
     * (n − 1) / (last − first intended send) of the arrivals {@code sent} up to the last success's intended send (the
     * failures among them included): the schedule's rate over the part its successes answer.
     */
    private static double intendedRate(List<ScheduledRecord> sent, List<ScheduledRecord> ok) {
        long until = Long.MIN_VALUE;
        for (ScheduledRecord r : ok) until = Math.max(until, r.intendedSendOffsetNanos());
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        int n = 0;
        for (ScheduledRecord r : sent) {
            if (r.intendedSendOffsetNanos() > until) continue;
            first = Math.min(first, r.intendedSendOffsetNanos());
            last = Math.max(last, r.intendedSendOffsetNanos());
            n++;
        }
        return n >= 2 && last > first ? (n - 1) / ((last - first) / 1e9) : Double.NaN;
    }

    public int failures() {
        return total - successes;
    }

    /** Failed share of the recorded requests; 0 when none was recorded. */
    public double failureRate() {
        return total == 0 ? 0 : (double) failures() / total;
    }

    /**
     * The {@code p}-th percentile (0..100) by llmperf4j's one definition, {@link Percentiles#of(double[], double)}
     * (numpy's linear interpolation); NaN for no values.
     */
    public static double percentile(double[] values, double p) {
        return Percentiles.of(values, p);
    }

    /** The percentile of nanosecond values, in ms: interpolated in ns first, as the summary does. */
    private static double millis(long[] nanos, double p) {
        return Percentiles.of(nanos, p) / 1e6;
    }

    private static long[] nanos(List<ScheduledRecord> records, ToLongFunction<ScheduledRecord> nanos) {
        return records.stream().mapToLong(nanos).filter(v -> v >= 0).toArray();
    }
}
