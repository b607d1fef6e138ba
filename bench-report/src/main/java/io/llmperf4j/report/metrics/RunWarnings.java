package io.llmperf4j.report.metrics;

import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.EventTokenCounts;
import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.PrintableText;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.ServerGone;
import io.llmperf4j.report.stats.PandasStats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** The rules behind {@link WarningCode}s, with their thresholds. */
public final class RunWarnings {

    /** Below this many successful requests percentiles are unstable (the concurrency-sweep guide's rule). */
    public static final int MIN_SUCCESSFUL_SAMPLES = 10;
    /** EARLY_STOP fires when the median of output / max_tokens among "stop" requests is below this. */
    public static final double EARLY_STOP_MEDIAN_RATIO = 0.5;
    /** ... and "stop" requests are at least this share of the successful requests. */
    public static final double EARLY_STOP_MIN_SHARE = 0.1;
    /** MULTI_TOKEN_CHUNKS fires above this many output tokens per content event. */
    public static final double MULTI_TOKEN_CHUNK_RATIO = 1.5;
    /** TOKEN_COUNT_MISMATCH fires when more than this percentage of compared requests differ ... */
    public static final double TOKEN_MISMATCH_PERCENT = 10.0;
    /** ... by more than this many tokens on average. */
    public static final double TOKEN_MISMATCH_MEAN_TOKENS = 1.0;
    /**
     * OUTPUT_BEYOND_MAX_TOKENS: the client's count above this many times max_tokens (tokenizers of one text differ by
     * tens of percent, not by twice) ...
     */
    public static final int OUTPUT_BEYOND_MAX_TOKENS_FACTOR = 2;
    /** ... and at least this many tokens over it (a few tokens of a short answer are within a tokenizer's spread). */
    public static final int OUTPUT_BEYOND_MAX_TOKENS_MIN_EXCESS = 16;
    /** STREAM_LINES_IGNORED quotes this much of its example line (a whole chunk's JSON would fill the console line). */
    static final int EXAMPLE_LINE_CHARS = 60;

    /**
     * CLIENT_BOTTLENECK needs a client whose event loops ran late: a probe task's p99 delay on them above
     * {@value #CLIENT_LAG_BASELINE_FACTOR} times the machine's own idle p99 (measured before the run), and at least
     * this (also the threshold when no baseline was measured) ...
     */
    public static final long CLIENT_LAG_P99_NANOS = 1_000_000;
    /** ... the factor over the idle baseline ... */
    public static final double CLIENT_LAG_BASELINE_FACTOR = 4.0;
    /**
     * ... and late by a material part of the latencies it stamped: a lag p99 above this share of the successful
     * requests' TTFT p50 (a late first-token stamp adds its lag to that request's TTFT in full) ...
     */
    public static final double CLIENT_LAG_TTFT_SHARE = 0.10;
    /**
     * ... or above this share of their ITL p50 (per event): a late chunk stamp lengthens one gap and shortens the
     * next by as much, so ITL's median hardly moves and its tails take the lag; at half the median gap they are as
     * much the client's as the server's.
     */
    public static final double CLIENT_LAG_ITL_SHARE = 0.50;
    /**
     * Its sentence blames the client when it was busy: the process used more than this share of the machine's cores,
     * or its busiest I/O thread was on a CPU more than this share of the time; otherwise what kept it from the CPUs.
     */
    public static final double CLIENT_BUSY_SHARE = 0.5;
    /**
     * ... where the process's share counts only over a run at least this long: in a shorter one the JIT compilers'
     * start-up work is most of the process's CPU, not the client's I/O.
     */
    public static final long CLIENT_BUSY_MIN_WALL_NANOS = 2_000_000_000L;

    /**
     * SENT_LATE counts an arrival as late when it went out more than this many ms after its scheduled instant, or
     * more than the mean interval between arrivals when that is longer (a lag within one interval keeps the arrival
     * pattern; beyond it, late arrivals bunch up with the next ones) ...
     */
    public static final long SENT_LATE_FLOOR_MILLIS = 10;
    /** ... and fires when late ones are more than this percentage of the arrivals sent (a send lag p99 above it). */
    public static final double SENT_LATE_SHARE_PERCENT = 1.0;
    /**
     * SENT_LATE needs at least this many late arrivals: one or two (a collector's pause, the first sends before the
     * compiler caught up) do not change the pattern the server saw, and a short run's 1 % is one arrival.
     */
    public static final int SENT_LATE_MIN_ARRIVALS = 3;
    /**
     * TURNS_SENT_LATE needs at least this many late turns: a session run is often a few dozen turns, where two turns
     * half a second late are already a different conversation pace (the sessions QA's: 2 of 8).
     */
    public static final int TURNS_SENT_LATE_MIN_TURNS = 2;

    /** PREFIX_CACHE_REUSED fires above this share of prompt tokens served from the server's prefix cache. */
    public static final double PREFIX_CACHE_REUSED_SHARE = 0.5;

    private RunWarnings() {
    }

    /**
     * One sequence of prompts a run sent (a level's, a harness fork's): a {@link RequestRecord#promptIndex()} names
     * one prompt within it.
     *
     * @param earlier  sent before and not judged (the level's warmup requests): their prompts count as sent
     * @param measured the requests judged
     */
    public record PromptSends(List<RequestRecord> earlier, List<RequestRecord> measured) {
        public PromptSends {
            earlier = List.copyOf(earlier);
            measured = List.copyOf(measured);
        }
    }

    /** As {@link #prefixCacheReused(List, boolean)} for one sequence of prompts drawn not to share, no warmup. */
    public static Optional<RunWarning> prefixCacheReused(List<RequestRecord> records) {
        return prefixCacheReused(List.of(new PromptSends(List.of(), records)), true);
    }

    /**
     * PREFIX_CACHE_REUSED: the server reported more than {@value #PREFIX_CACHE_REUSED_SHARE} of the prompt tokens of
     * the successful measured requests with usage as cached ({@code usage.prompt_tokens_details.cached_tokens}; a
     * request without the count counts 0 once any request reported one, as vLLM omits a 0). The message says why:
     * the run sent its own prompts again (a request whose prompt its sequence sent before, warmup included: a fixed
     * workload in a loop), or, when it sent each once, an earlier run sent them. Empty when the server reports no
     * cached tokens.
     *
     * @param drawnFresh the prompts were drawn not to share prefixes; otherwise (a dataset, shared prefixes by
     *                   design) the cache is only blamed on the run's own repeats, when they hold more than
     *                   {@value #PREFIX_CACHE_REUSED_SHARE} of the prompt tokens
     */
    public static Optional<RunWarning> prefixCacheReused(List<PromptSends> sequences, boolean drawnFresh) {
        return prefixCacheReused(sequences, drawnFresh, 0);
    }

    /**
     * As {@link #prefixCacheReused(List, boolean)}, where every prompt starts with the same {@code sharedPrefixTokens}
     * by design (llmperf's instruction at the start of each synthetic prompt): cached tokens up to that many per
     * request are what any server with a prefix cache serves after the first request, not a sign of prompts sent
     * before. A level is warned only when, those left out of both counts, more than
     * {@value #PREFIX_CACHE_REUSED_SHARE} of the rest of its prompt tokens came from the cache too.
     */
    public static Optional<RunWarning> prefixCacheReused(List<PromptSends> sequences, boolean drawnFresh,
                                                         int sharedPrefixTokens) {
        return prefixCacheReused(sequences, drawnFresh, sharedPrefixTokens, List.of());
    }

    /**
     * As {@link #prefixCacheReused(List, boolean, int)} for a model of a comparison ({@code --model a,b}) whose
     * {@code earlierModels} sent the same prompts to the same server just before it: where the message says the
     * prompts were sent before, it names them too, as a server that shares one prefix cache across its model names
     * (aliases of one engine, a router) serves them from its cache; vLLM and the simulator keep a cache per model.
     */
    public static Optional<RunWarning> prefixCacheReused(List<PromptSends> sequences, boolean drawnFresh,
                                                         int sharedPrefixTokens, List<String> earlierModels) {
        if (sharedPrefixTokens < 0) throw new IllegalArgumentException("sharedPrefixTokens < 0");
        boolean counted = sequences.stream().flatMap(q -> q.measured().stream())
                .anyMatch(r -> r.tags().cachedTokens() != null);
        if (!counted) return Optional.empty();
        long cached = 0;
        long prompt = 0;
        long repeatedTokens = 0;
        // of the requests' first sends: their cached and prompt tokens past the shared start
        long firstCachedPast = 0;
        long firstPromptPast = 0;
        long cachedPast = 0;
        long promptPast = 0;
        int requests = 0;
        int repeated = 0;
        int distinct = 0;
        for (PromptSends q : sequences) {
            Set<Integer> sent = new HashSet<>();
            q.earlier().forEach(r -> sent.add(r.promptIndex()));
            List<RequestRecord> inOrder = new ArrayList<>(q.measured());
            inOrder.sort(Comparator.comparingLong(RequestRecord::startEpochMicros));
            for (RequestRecord r : inOrder) {
                boolean again = !sent.add(r.promptIndex());
                if (!r.succeeded() || r.usagePromptTokens() == null || r.usagePromptTokens() <= 0) continue;
                requests++;
                int p = r.usagePromptTokens();
                int c = r.tags().cachedTokens() == null ? 0 : r.tags().cachedTokens();
                prompt += p;
                cached += c;
                cachedPast += Math.max(0, c - sharedPrefixTokens);
                promptPast += Math.max(0, p - sharedPrefixTokens);
                if (again) {
                    repeated++;
                    repeatedTokens += p;
                } else {
                    firstCachedPast += Math.max(0, c - sharedPrefixTokens);
                    firstPromptPast += Math.max(0, p - sharedPrefixTokens);
                }
            }
            distinct += sent.size();
        }
        if (prompt == 0 || cached <= PREFIX_CACHE_REUSED_SHARE * prompt) return Optional.empty();
        // the start every prompt shares explains the cache (short prompts: their instruction is most of them)
        if (cachedPast <= PREFIX_CACHE_REUSED_SHARE * promptPast) return Optional.empty();
        String share = String.format(Locale.ROOT, "%.1f %% of the prompt tokens (%d of %d) came from the server's "
                + "prefix cache", 100.0 * cached / prompt, cached, prompt);
        if (repeated == 0 || (!drawnFresh && repeatedTokens <= PREFIX_CACHE_REUSED_SHARE * prompt)) {
            if (!drawnFresh) return Optional.empty(); // a workload that may share prefixes by design
            return Optional.of(new RunWarning(WarningCode.PREFIX_CACHE_REUSED, share + ", though this "
                    + "workload's prompts do not share prefixes by design: they were sent to this server before, "
                    + sentBefore(earlierModels) + ", so TTFT measures cached prefill. " + (earlierModels.isEmpty()
                    ? "" : "Compare models on servers that do not share a cache, or ")
                    + (earlierModels.isEmpty() ? "Use" : "use") + " another --seed, or restart the server (or reset "
                    + "its prefix cache)."));
        }
        // the first sends of each prompt found in the cache too: sent before this run
        boolean earlierRun = drawnFresh && firstCachedPast > PREFIX_CACHE_REUSED_SHARE * firstPromptPast;
        return Optional.of(new RunWarning(WarningCode.PREFIX_CACHE_REUSED, share + ": this run sent its own "
                + "prompts again (" + repeated + " of its " + requests + " requests repeated one of the " + distinct
                + " prompts it had sent: a workload sent in a loop), and the cache served the repeats, so TTFT "
                + "measures cached prefill" + (earlierRun ? "; the prompts it sent first were cached too, sent "
                + "before " + sentBefore(earlierModels) : "") + ". Send each prompt once: more prompts "
                + "(--max-num-completed-requests, a larger dataset) or a shorter run" + (earlierRun ? "; and use "
                + "another --seed, or restart the server (or reset its prefix cache)." : ".")));
    }

    /**
     * Who sent a run's prompts to the server before it: "by an earlier run with the same --seed", and for a model of a
     * comparison first "by this comparison's model a (the same prompts, just before: this server shares one prefix
     * cache across its model names)".
     */
    private static String sentBefore(List<String> earlierModels) {
        String run = "by an earlier run with the same --seed";
        if (earlierModels.isEmpty()) return run;
        return "by this comparison's " + (earlierModels.size() == 1 ? "model " : "models ")
                + String.join(", ", earlierModels) + " (the same prompts, just before: this server shares one prefix "
                + "cache across its model names) or " + run;
    }

    /** The lag p99 above which the client's event loops count as late: from the idle baseline when measured. */
    public static long clientLagThresholdNanos(ClientOverhead o) {
        if (!o.hasIdleBaseline()) return CLIENT_LAG_P99_NANOS;
        return Math.max(CLIENT_LAG_P99_NANOS, Math.round(CLIENT_LAG_BASELINE_FACTOR * o.idleLagP99Nanos()));
    }

    private static boolean clientBusy(ClientOverhead o) {
        // CPU time only: a crowded machine keeps even a light client's thread waiting for a CPU (runnable) most of
        // the time, so the runnable share (ClientOverhead.ioRunnableShareMax) tells contention, not a busy client
        boolean processBusy = o.wallNanos() >= CLIENT_BUSY_MIN_WALL_NANOS && o.processCpuShare() > CLIENT_BUSY_SHARE;
        return processBusy || o.ioBusyShareMax() > CLIENT_BUSY_SHARE;
    }

    /**
     * CLIENT_BOTTLENECK when {@code overhead} (null: not measured) shows a client whose event loops ran clearly later
     * than the machine's idle noise (lag p99 above {@link #clientLagThresholdNanos}) and by a material part of the
     * run's own latencies: above {@value #CLIENT_LAG_TTFT_SHARE} of the successful requests' TTFT p50 or
     * {@value #CLIENT_LAG_ITL_SHARE} of their ITL p50 ({@link Metric#ITL}, per event). Its stamps of first tokens and
     * chunks came late by as much, so TTFT and ITL include the client's delays, whatever delayed it. The sentence
     * sizes the lag against both figures and says which: a busy client (it may also have limited throughput), or
     * other work that kept it from the CPUs (named: the embedded simulated server when it runs in this process, see
     * {@link MetricsConfig#serverInProcess()}). Empty under both bounds, and without a successful request's TTFT or
     * ITL to size the lag against (nothing it could distort). One sentence with the numbers and the bounds.
     */
    public static Optional<RunWarning> clientBottleneck(ClientOverhead overhead, RunMetrics metrics) {
        return clientBottleneck(overhead, p50(metrics.stats(Metric.TTFT)), p50(metrics.stats(Metric.ITL)),
                metrics.config().serverInProcess());
    }

    /**
     * BEHIND_SCHEDULE, for an open loop whose successes ended, with 95 % confidence, below {@code threshold} of its
     * scheduled rate: the share of the offer served (1 / the slope of the successes' ends against their intended
     * sends) and its whole 95 % interval under the threshold (the caller applies the rate sweep's rule); the figures
     * are in the sentence, the rate served as share × scheduled.
     *
     * @param share              the share of the scheduled rate the successes ended at
     * @param shareLow           its 95 % interval's lower end
     * @param shareHigh          its upper end, below {@code threshold}
     * @param scheduledPerSecond the schedule's rate
     * @param sentPerSecond      the rate requests were sent at (NaN: not known)
     * @param threshold          the share below which the loop is behind (1 − --saturation-gain)
     */
    public static RunWarning behindSchedule(double share, double shareLow, double shareHigh,
                                            double scheduledPerSecond, double sentPerSecond, double threshold) {
        return behindSchedule(share, shareLow, shareHigh, scheduledPerSecond, sentPerSecond, threshold, null);
    }

    /**
     * As {@link #behindSchedule(double, double, double, double, double, double)}, the share being the successes' share
     * of the arrivals times their ends' when {@code failedArrivals} ("18 of 60 arrivals failed (18x 429)") is given:
     * the sentence says so first.
     */
    public static RunWarning behindSchedule(double share, double shareLow, double shareHigh,
                                            double scheduledPerSecond, double sentPerSecond, double threshold,
                                            String failedArrivals) {
        String failed = failedArrivals == null ? "" : failedArrivals + ", counted as not served; ";
        return new RunWarning(WarningCode.BEHIND_SCHEDULE, String.format(Locale.ROOT, "The open loop fell behind its "
                        + "schedule: %sits successes ended at about %.2f req/s against %.2f req/s scheduled (%.1f "
                        + "%%, 95 %% interval %.1f-%.1f %%, below %.1f %% = 100 - --saturation-gain%s): the server "
                        + "(or the --max-concurrency cap) did not keep up with the offered rate, so this run "
                        + "measured a lower load than it was asked for, and its latencies from the intended send "
                        + "include the wait. Lower the rate, or read this as the server's limit.", failed,
                share * scheduledPerSecond, scheduledPerSecond, 100 * share, 100 * shareLow, 100 * shareHigh,
                100 * threshold, Double.isFinite(sentPerSecond)
                        ? String.format(Locale.ROOT, "; sent %.2f req/s", sentPerSecond) : ""));
    }

    /**
     * SENT_LATE, for an open loop whose sends went out late: more than {@value #SENT_LATE_SHARE_PERCENT} % of its
     * measured arrivals sent were more than the larger of {@value #SENT_LATE_FLOOR_MILLIS} ms and the mean interval
     * between arrivals ({@code 1 / offeredPerSecond}) after their scheduled instants. Judged on the lag itself, so it
     * fires when the completion rate kept up (BEHIND_SCHEDULE silent: a late pacer sends the arrivals it owes in a
     * burst, above the scheduled rate). The sentence gives the count, the bound and the lag's p50, p99 and max; with
     * a cap ({@code maxConcurrency} above 0) it says that waiting for a free slot is part of the lag. Empty when no
     * arrival was sent, the share is within the bound, or fewer than {@value #SENT_LATE_MIN_ARRIVALS} were late.
     *
     * @param sendLagNanos     each measured request's send lag (actual minus intended send), ns; negatives ignored
     * @param offeredPerSecond the open loop's rate (its mean, for a trace)
     * @param maxConcurrency   the {@code --max-concurrency} cap, or 0 for none
     */
    public static Optional<RunWarning> sentLate(long[] sendLagNanos, double offeredPerSecond, int maxConcurrency) {
        return sentLate(sendLagNanos, offeredPerSecond, maxConcurrency, false);
    }

    /**
     * As {@link #sentLate(long[], double, int)}; {@code sessionStarts}: the arrivals started sessions (their first
     * turns), and the sentence says their later turns are TURNS_SENT_LATE's, judged apart.
     */
    public static Optional<RunWarning> sentLate(long[] sendLagNanos, double offeredPerSecond, int maxConcurrency,
                                                boolean sessionStarts) {
        double interval = offeredPerSecond > 0 && Double.isFinite(offeredPerSecond) ? 1e9 / offeredPerSecond : 0;
        LateSends l = LateSends.of(sendLagNanos, Math.max(SENT_LATE_FLOOR_MILLIS * 1_000_000L, interval));
        if (!l.warns(SENT_LATE_MIN_ARRIVALS)) return Optional.empty();
        String why = maxConcurrency > 0
                ? "an arrival that finds the --max-concurrency " + maxConcurrency + " cap full waits for a free slot, "
                + "and the wait counts here: the server did not end requests as fast as they were due (or the "
                + "client's pacer was late: CLIENT_BOTTLENECK, when raised, says why). Raise the cap, lower the "
                + "rate, or read it as the server's limit at this cap."
                : "the client could not send at the rate asked for (its pacer, or the client behind it, fell "
                + "behind: CLIENT_BOTTLENECK, when raised, says why). Lower the rate, run the client on a machine "
                + "of its own, or spread the load over load workers (--cluster).";
        return Optional.of(new RunWarning(WarningCode.SENT_LATE, String.format(Locale.ROOT, "The open loop sent "
                        + "late: %d of %d arrivals %ssent (%.1f %%) went out more than %.2f ms after their scheduled "
                        + "instants (the larger of %d ms and the mean interval between arrivals, %.2f ms; late above "
                        + "%.0f %% of them warns); send lag p50 %.2f ms, p99 %.2f ms, max %.2f ms. The server saw "
                        + "another arrival pattern than the one asked for (late arrivals go in bunches), whatever the "
                        + "completion rate, and latencies from the intended send include the lag: %s%s",
                l.late(), l.sent(), sessionStarts ? "(not the sessions' later turns) " : "", l.percent(),
                l.boundNanos() / 1e6, SENT_LATE_FLOOR_MILLIS, interval / 1e6, SENT_LATE_SHARE_PERCENT, l.p50Millis(),
                l.p99Millis(), l.maxMillis(), why, sessionStarts ? " The sessions' later turns, due at a time the client set, are "
                        + "judged apart, from their actual send (TURNS_SENT_LATE)." : "")));
    }

    /**
     * TURNS_SENT_LATE, for sessions' turns whose due time the client set itself (a later turn at the previous reply's
     * end plus its think time, a failed session's rest, a closed loop's next session when its slot freed): SENT_LATE's
     * rule (more than {@value #SENT_LATE_SHARE_PERCENT} % of them late), over the other sends of a session run, with a
     * flat bound of {@value #SENT_LATE_FLOOR_MILLIS} ms (no interval between arrivals: a turn late at all slows its
     * conversation) and at least {@value #TURNS_SENT_LATE_MIN_TURNS} late. Their TTFT and E2E are judged from the
     * actual send, so the lag is not in them, unlike an open loop's arrivals: this is where it shows. Empty otherwise.
     *
     * @param sendLagNanos   those turns' send lags, ns; negatives ignored
     * @param maxConcurrency the {@code --max-concurrency} cap, or 0 for none
     */
    public static Optional<RunWarning> turnsSentLate(long[] sendLagNanos, int maxConcurrency) {
        LateSends l = LateSends.of(sendLagNanos, SENT_LATE_FLOOR_MILLIS * 1_000_000L);
        if (!l.warns(TURNS_SENT_LATE_MIN_TURNS)) return Optional.empty();
        String why = maxConcurrency > 0
                ? "a turn due while the --max-concurrency " + maxConcurrency + " cap is full waits for a free slot, "
                + "and the wait counts here; raise the cap, or"
                : "the client was late (CLIENT_BOTTLENECK, when raised, says why; a cold client's first turns are "
                + "later: keep the client warm-up);";
        return Optional.of(new RunWarning(WarningCode.TURNS_SENT_LATE, String.format(Locale.ROOT, "Sessions' turns "
                        + "sent late: %d of %d turns due at a time the client set (a later turn after its think "
                        + "time, a failed session's rest, a closed loop's next session when its slot freed) went out "
                        + "more than %d ms after it (%.1f %%); send lag p50 %.2f ms, p99 %.2f ms, max %.2f ms. The "
                        + "conversations went at the client's pace, not the workload's; their TTFT and E2E, goodput "
                        + "and --slo count from the actual send, so the lag is not in them (an open loop's session "
                        + "starts, due at the schedule's instants, are SENT_LATE's): %s run the client on a quieter "
                        + "machine or one of its own. The CSV's send_lag_s has each turn's lag.",
                l.late(), l.sent(), SENT_LATE_FLOOR_MILLIS, l.percent(), l.p50Millis(), l.p99Millis(), l.maxMillis(),
                why)));
    }

    /**
     * The one lateness rule SENT_LATE and TURNS_SENT_LATE share: of the sends (negative lags ignored), those more
     * than {@code boundNanos} after they were due; it warns above {@value #SENT_LATE_SHARE_PERCENT} % of them and at
     * a warning's own least count.
     */
    private record LateSends(long[] sortedLags, double boundNanos, long late) {
        static LateSends of(long[] sendLagNanos, double boundNanos) {
            long[] lags = Arrays.stream(sendLagNanos).filter(v -> v >= 0).sorted().toArray();
            return new LateSends(lags, boundNanos, Arrays.stream(lags).filter(v -> v > boundNanos).count());
        }

        int sent() {
            return sortedLags.length;
        }

        double percent() {
            return sent() == 0 ? 0 : 100.0 * late / sent();
        }

        boolean warns(int leastLate) {
            return sent() > 0 && percent() > SENT_LATE_SHARE_PERCENT && late >= leastLate;
        }

        double p50Millis() {
            return Percentiles.of(sortedLags, 50) / 1e6;
        }

        double p99Millis() {
            return Percentiles.of(sortedLags, 99) / 1e6;
        }

        double maxMillis() {
            return sortedLags[sortedLags.length - 1] / 1e6;
        }
    }

    private static double p50(MetricStats stats) {
        return stats == null || stats.isEmpty() ? Double.NaN : stats.p50();
    }

    /**
     * As {@link #clientBottleneck(ClientOverhead, RunMetrics)}, with the successful requests' TTFT p50 and ITL p50
     * (NaN: not measured); a figure not above 0 is not compared (an ITL p50 of 0 is chunks read together, which
     * leaves nothing to size a lag against).
     */
    public static Optional<RunWarning> clientBottleneck(ClientOverhead overhead, double ttftP50Nanos,
                                                        double itlP50Nanos, boolean serverInProcess) {
        if (overhead == null || overhead.lagSamples() == 0) return Optional.empty();
        long threshold = clientLagThresholdNanos(overhead);
        long lagP99 = overhead.lagP99Nanos();
        if (lagP99 <= threshold) return Optional.empty();
        boolean ttftMaterial = ttftP50Nanos > 0 && lagP99 > CLIENT_LAG_TTFT_SHARE * ttftP50Nanos;
        boolean itlMaterial = itlP50Nanos > 0 && lagP99 > CLIENT_LAG_ITL_SHARE * itlP50Nanos;
        if (!ttftMaterial && !itlMaterial) return Optional.empty();
        String baseline = overhead.hasIdleBaseline()
                ? String.format(Locale.ROOT, "%.0fx its idle p99 of %.2f ms measured before the run",
                CLIENT_LAG_BASELINE_FACTOR, overhead.idleLagP99Nanos() / 1e6)
                : "no idle baseline was measured";
        String lag = String.format(Locale.ROOT, "its event loops ran late (lag p99 %.2f ms, max %.2f ms, above the "
                        + "%.2f ms threshold: %s), so its stamps of first tokens and chunks were up to %.2f ms late "
                        + "at p99: %s",
                lagP99 / 1e6, overhead.lagMaxNanos() / 1e6, threshold / 1e6, baseline, lagP99 / 1e6,
                shares(lagP99, ttftP50Nanos, itlP50Nanos));
        String load = String.format(Locale.ROOT, "process CPU %s of %d cores%s, busiest I/O thread on a CPU %s of the "
                + "time", percent(overhead.processCpuShare()), overhead.availableProcessors(),
                serverInProcess ? ", the embedded simulated server's included" : "",
                percent(overhead.ioBusyShareMax()));
        if (clientBusy(overhead)) {
            return Optional.of(new RunWarning(WarningCode.CLIENT_BOTTLENECK, "The client may have limited this run: "
                    + lag + ", while it was busy (" + load + "), so latencies include the client's own delays and "
                    + "throughput may be its limit; run it on a machine of its own or with more cores, lower the "
                    + "load" + (serverInProcess ? ", benchmark a server outside this process (OPENAI_API_BASE)" : "")
                    + ", or measure its error floor with 'llmperf4j calibrate'."));
        }
        String others = serverInProcess
                ? "the embedded simulated server, which runs in this process on the same CPUs, this process's JIT "
                + "compilers and garbage collector, or other processes"
                : "other processes on this machine, or this process's own JIT compilers and garbage collector";
        return Optional.of(new RunWarning(WarningCode.CLIENT_BOTTLENECK, "The client's delays are a material part "
                + "of this run's latencies: " + lag + ", though it was not busy (" + load + "): other work kept it "
                + "from the CPUs (" + others + "), so TTFT and ITL include its delays, not only the server's (an ITL "
                + "p50 near 0 is a stall then a catch-up); run it on a quieter machine or with more cores"
                + (serverInProcess ? ", benchmark a server outside this process (OPENAI_API_BASE)" : "")
                + ", or measure its error floor with 'llmperf4j calibrate'."));
    }

    /** "3% of TTFT p50 (63.0 ms) and 19% of ITL p50 (10.0 ms)", each where measured, then the bounds. */
    private static String shares(long lagNanos, double ttftP50Nanos, double itlP50Nanos) {
        List<String> parts = new ArrayList<>();
        if (ttftP50Nanos > 0) parts.add(share(lagNanos, ttftP50Nanos) + " of TTFT p50 (" + millis(ttftP50Nanos) + ")");
        if (itlP50Nanos > 0) parts.add(share(lagNanos, itlP50Nanos) + " of ITL p50 (" + millis(itlP50Nanos) + ")");
        return String.join(" and ", parts) + String.format(Locale.ROOT, ", a material part above %.0f%% of TTFT p50 "
                + "or %.0f%% of ITL p50", 100 * CLIENT_LAG_TTFT_SHARE, 100 * CLIENT_LAG_ITL_SHARE);
    }

    private static String share(long part, double whole) {
        double percent = 100.0 * part / whole;
        return percent < 1 ? "under 1%" : String.format(Locale.ROOT, "%.0f%%", percent);
    }

    private static String millis(double nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "unknown" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }

    /**
     * What the failures point at: a 4xx other than 408/429 (an HTTP status, or the code of an error in the stream
     * before any token), or a failed connection (TLS, refused, unknown host), is the client's configuration; 429, 408,
     * 5xx (either way), a coded error in the stream after tokens (whatever its code: the server failed while serving,
     * {@link FailureCause#of(FailureKind, Integer, boolean)}), timeouts and dropped connections may be the server's
     * capacity; the rest (an error in the stream without a
     * code, malformed or cut-short responses, client errors) points at neither. When failures point different ways,
     * each is counted, so the counts add up to the failures. A failed connection after the server had answered (a
     * request of the same run whose response headers came, else its first content, or a success's end:
     * {@link ServerGone.Request#answeredAtEpochMicros()}) is the server going away
     * ({@link FailureCause#SERVER_UNAVAILABLE}): the sentence says after how many successes, or before any, and when
     * ({@link ServerGone}, the reading the page and the sweep's verdict share).
     */
    static String failureCause(List<RequestMetrics> requests) {
        return failureCause(requests, (ServerGone.Earlier) null);
    }

    /**
     * As {@link #failureCause(List)} for a sweep's level, read with the levels before it ({@code earlier}, null for a
     * run read alone): the server had answered an earlier level, so a connection of this level refused before its own
     * first answer is the server going away, not the configuration, worded as the sweep's verdict words it
     * ({@link ServerGone.Earlier#words()}: "the server was gone since concurrency 2") when the level has no reading of
     * its own.
     */
    static String failureCause(List<RequestMetrics> requests, ServerGone.Earlier earlier) {
        return failureCause(requests, RequestMetrics.failureCauses(requests, earlier),
                earlier == null ? null : earlier.words());
    }

    private static String failureCause(List<RequestMetrics> requests, List<FailureCause> causes, String goneBefore) {
        long configuration = 0;
        long capacity = 0;
        long lost = 0;
        long other = 0;
        long unavailable = 0;
        boolean uncodedErrors = false;
        boolean dropped = false;
        boolean streamErrors = false;
        for (int i = 0; i < requests.size(); i++) {
            RequestMetrics r = requests.get(i);
            if (r.succeeded()) continue;
            switch (causes.get(i)) {
                case CANCELLED -> { }
                case LOST -> lost++;
                case CONFIGURATION -> configuration++;
                case CAPACITY -> {
                    capacity++;
                    dropped |= r.failureKind() == FailureKind.CONNECTION_CLOSED;
                    streamErrors |= r.failureKind() == FailureKind.ERROR_IN_STREAM;
                }
                case SERVER_UNAVAILABLE -> unavailable++;
                case OTHER -> {
                    other++;
                    uncodedErrors |= r.failureKind() == FailureKind.ERROR_IN_STREAM;
                }
            }
        }
        Optional<ServerGone> own = serverGone(requests);
        String gone = unavailable == 0 ? "" : unavailable + " point at the server going away: "
                + (own.isEmpty() && goneBefore != null ? goneBefore(goneBefore) : serverStopped(own.orElseThrow()));
        if (unavailable > 0 && configuration + capacity + other + lost == 0) return gone + ".";
        if (unavailable > 0) {
            String rest = failureCauseOfTheRest(configuration, capacity, lost, other, uncodedErrors, dropped,
                    streamErrors);
            return gone + "; of the others: " + rest;
        }
        return failureCauseOfTheRest(configuration, capacity, lost, other, uncodedErrors, dropped, streamErrors);
    }

    /**
     * The server going away in a run's {@code requests} ({@link ServerGone}, the reading the page and the sweep's
     * verdict share); empty when no failure points at it.
     */
    public static Optional<ServerGone> serverGone(List<RequestMetrics> requests) {
        return RequestMetrics.serverGone(requests);
    }

    /**
     * "the server stopped accepting connections after 12 successes at 14:03:07 UTC (...); check its logs. The URL is
     * right: requests to it had succeeded": the successes that had ended when the first refused request was sent;
     * with none, the requests whose streams had begun (killed during the first wave).
     */
    private static String serverStopped(ServerGone gone) {
        String why = " (a restart, a crash, an out-of-memory kill?); check its logs. The URL is right: ";
        if (!gone.beforeAnySuccess()) {
            return "the server stopped accepting connections " + gone.when() + " at " + gone.utcTime() + " UTC" + why
                    + "requests to it had succeeded";
        }
        return "the server stopped accepting connections at " + gone.utcTime() + " UTC, " + gone.when() + why
                + "it had answered";
    }

    /**
     * "the server was gone after concurrency 1: this level's connections were refused (...)": a sweep's level that
     * found the server gone, in the verdict's words.
     */
    private static String goneBefore(String goneBefore) {
        return goneBefore + ": this level's connections were refused (a restart, a crash, an out-of-memory kill?); "
                + "check its logs. The URL is right: it had answered an earlier level";
    }

    private static String failureCauseOfTheRest(long configuration, long capacity, long lost, long other,
                                                boolean uncodedErrors, boolean dropped, boolean streamErrors) {
        // a worker that left the cluster is no fault of the server's: say so, and judge the others on their own
        String lostText = lost == 0 ? "" : lost + (lost == 1 ? " was" : " were") + " lost with a load worker that left the cluster mid-run (no "
                + "fault of the server's; see the coordinator's log for which)";
        if (lost > 0 && configuration + capacity + other == 0) return lostText + ".";
        String rest = causeOfServed(configuration, capacity, other, uncodedErrors, dropped, streamErrors);
        return lost == 0 ? rest : lostText + "; of the others: " + rest;
    }

    /**
     * @param dropped      some capacity failures are connections closed mid-response, which a server that stops makes
     *                     too
     * @param streamErrors some are errors inside a 200 stream: the server had accepted the request and failed while
     *                     serving it (an engine error), whatever the code its error carried
     */
    private static String causeOfServed(long configuration, long capacity, long other, boolean uncodedErrors,
                                        boolean dropped, boolean streamErrors) {
        String config = "check the configuration (API key, model id, base URL with its /v1, TLS trust): the "
                + "server refused the requests or could not be reached.";
        String load = (dropped
                ? "the server may not hold this load (rate limits, server errors, timeouts or dropped connections)"
                : "the server may not hold this load (rate limits, server errors or timeouts)")
                + whileAnswering(dropped, streamErrors);
        String api = uncodedErrors
                ? "the server reported errors without a status code, or its responses were not what the API "
                + "promises: read the messages of the failure kinds; check that the endpoint is the API named by "
                + "--llm-api."
                : "the server's responses were not what the API promises (see the failure kinds); check that the "
                + "endpoint is the API named by --llm-api.";
        int ways = (configuration > 0 ? 1 : 0) + (capacity > 0 ? 1 : 0) + (other > 0 ? 1 : 0);
        if (ways <= 1) return configuration > 0 ? config : capacity > 0 ? load : api;
        List<String> counts = new ArrayList<>();
        if (configuration > 0) counts.add(configuration + " point at the configuration");
        if (capacity > 0) counts.add(capacity + (counts.isEmpty() ? " point" : "") + " at capacity");
        if (other > 0) counts.add(other + " at neither");
        String tally = counts.size() == 2 ? counts.get(0) + " and " + counts.get(1)
                : counts.get(0) + ", " + counts.get(1) + " and " + counts.get(2);
        String advice = configuration > 0 ? config + (capacity > 0 ? " Otherwise " + load : "") : load;
        return tally + ": " + advice + (other > 0 ? " For the rest: " + api : "");
    }

    /**
     * How capacity failures' words end: what else than load they may be (the warning's and the page's Errors sentence
     * alike), "." when nothing else.
     *
     * @param dropped      some are connections closed mid-response, which a server that stops makes too
     * @param streamErrors some are coded error events after tokens: the server failed while serving (an engine error)
     */
    public static String whileAnswering(boolean dropped, boolean streamErrors) {
        return dropped && streamErrors ? ", or it failed or stopped while answering (error events in streams it had "
                + "accepted, a crash, a restart?): check its logs."
                : dropped ? ", or it stopped while answering (a crash, a restart?): check its logs."
                : streamErrors ? ", or it failed while answering (error events in streams it had accepted: an engine "
                + "error?): check its logs." : ".";
    }

    /** The warnings for a run's requests, in {@link WarningCode} order. */
    public static List<RunWarning> evaluate(List<RequestMetrics> requests, TokenDiscrepancy discrepancy,
                                            boolean timedOut) {
        return evaluate(requests, discrepancy, timedOut, CommonFailures.ofCodes(requests), null);
    }

    /**
     * As above, REQUESTS_FAILED naming each server-worded kind's most common status and message
     * ({@code commonFailures}, e.g. HTTP_STATUS: "2x 429 Rate limit exceeded", from {@link CommonFailures}), and
     * reading a sweep's level with its earlier levels' answer ({@code earlier}, null for a run read alone).
     */
    static List<RunWarning> evaluate(List<RequestMetrics> requests, TokenDiscrepancy discrepancy, boolean timedOut,
                                     Map<FailureKind, String> commonFailures, ServerGone.Earlier earlier) {
        List<RunWarning> warnings = new ArrayList<>();
        List<RequestMetrics> successes = requests.stream().filter(RequestMetrics::succeeded).toList();
        int recorded = requests.size();
        int succeeded = successes.size();

        if (succeeded == 0) {
            warnings.add(new RunWarning(WarningCode.FEW_SAMPLES, recorded == 0
                    ? "No request was recorded: there are no latency or throughput numbers for this run."
                    : "None of the " + recorded + " requests succeeded: there are no latency or throughput numbers "
                    + "for this run; record its failure rate."));
        } else if (succeeded < MIN_SUCCESSFUL_SAMPLES) {
            warnings.add(new RunWarning(WarningCode.FEW_SAMPLES, "Only " + succeeded + " successful request"
                    + (succeeded == 1 ? "" : "s") + " (fewer than " + MIN_SUCCESSFUL_SAMPLES
                    + "): percentiles are unstable. Run at least 50 requests per load level."));
        }

        earlyStop(successes).ifPresent(warnings::add);

        Map<FailureKind, Integer> failuresByKind = new EnumMap<>(FailureKind.class);
        requests.stream().filter(r -> !r.succeeded()).forEach(r -> failuresByKind.merge(r.failureKind(), 1, Integer::sum));
        int cancelled = failuresByKind.getOrDefault(FailureKind.CANCELLED, 0);
        int failedOtherwise = recorded - succeeded - cancelled;
        if (failedOtherwise > 0) {
            String kinds = failuresByKind.entrySet().stream()
                    .filter(e -> e.getKey() != FailureKind.CANCELLED)
                    .map(e -> e.getValue() + " " + e.getKey() + (commonFailures.containsKey(e.getKey())
                            ? ": " + commonFailures.get(e.getKey()) : ""))
                    .collect(Collectors.joining(", "));
            warnings.add(new RunWarning(WarningCode.REQUESTS_FAILED, failedOtherwise + " of " + recorded
                    + (recorded == 1 ? " request" : " requests") + " failed (" + kinds + "): "
                    + failureCause(requests, earlier) + " Report the failure rate "
                    + "with the results."));
        }
        if (cancelled > 0) {
            warnings.add(new RunWarning(WarningCode.REQUESTS_CANCELLED, cancelled + " request"
                    + (cancelled == 1 ? " was" : "s were") + " still in flight when the run ended"
                    + (timedOut ? " at its timeout" : "") + " and " + (cancelled == 1 ? "was" : "were")
                    + " cancelled: counted as failures in the error rate, absent from the latency statistics; "
                    + "the good fraction (with --slo) counts one as not good only when it had already outlived a "
                    + "TTFT or E2E bound, and leaves the others out."));
        }

        long noContent = successes.stream().filter(r -> r.ttftNanos().isEmpty()).count();
        if (noContent > 0) {
            warnings.add(new RunWarning(WarningCode.NO_CONTENT, noContent + " of " + succeeded
                    + " successful requests streamed no content, so they have no TTFT. Check the model id, and "
                    + "whether the model streams only reasoning_content."));
        }

        long uncounted = successes.stream().filter(r -> r.outputTokens().isEmpty()).count();
        if (uncounted > 0) {
            warnings.add(new RunWarning(WarningCode.TOKENS_UNCOUNTED, uncounted + " of " + succeeded
                    + " successful requests have no output token count (no server usage, no client count): they "
                    + "are left out of token throughput, TPOT and output tok/s."));
        }

        multiTokenChunks(successes).ifPresent(warnings::add);

        Optional<RunWarning> beyondMaxTokens = outputBeyondMaxTokens(requests);
        if (discrepancy.requestsCompared() > 0 && discrepancy.percentDiffering() > TOKEN_MISMATCH_PERCENT
                && discrepancy.meanAbsoluteDifference() > TOKEN_MISMATCH_MEAN_TOKENS) {
            boolean reasoned = successes.stream().anyMatch(r -> r.timeToFirstReasoningNanos().isPresent());
            warnings.add(new RunWarning(WarningCode.TOKEN_COUNT_MISMATCH, String.format(Locale.ROOT,
                    "The client tokenizer and the server's usage disagree on the output tokens of %d of %d requests "
                            + "(mean |difference| %.1f, max %d tokens, after subtracting %d special token%s): %s "
                            + "llmperf's files use the client count.",
                    discrepancy.requestsDiffering(), discrepancy.requestsCompared(),
                    discrepancy.meanAbsoluteDifference(), discrepancy.maxAbsoluteDifference(),
                    discrepancy.clientSpecialTokensSubtracted(),
                    discrepancy.clientSpecialTokensSubtracted() == 1 ? "" : "s",
                    reasoned ? "the server's count includes the reasoning tokens, which the client never counts "
                            + "(it counts the content), or the client tokenizer is not the model's."
                            // QA (slow_huge): a tokenizer does not explain 1,000,022 against 20
                            : beyondMaxTokens.isPresent() ? "the server streamed more than its usage says (see "
                            + "OUTPUT_BEYOND_MAX_TOKENS), or the client tokenizer is not the model's."
                            : "the client tokenizer is probably not the model's.")));
        }
        maxTokensExceeded(requests).ifPresent(warnings::add);
        beyondMaxTokens.ifPresent(warnings::add);
        return List.copyOf(warnings);
    }

    /**
     * OUTPUT_BEYOND_MAX_TOKENS: requests (any outcome) whose client count (special tokens subtracted) is more than
     * {@value #OUTPUT_BEYOND_MAX_TOKENS_FACTOR} times their max_tokens and {@value #OUTPUT_BEYOND_MAX_TOKENS_MIN_EXCESS}
     * tokens over it, while the server's usage was within max_tokens or absent (usage above it is
     * MAX_TOKENS_EXCEEDED's). QA (slow_huge): 1,000,022 client tokens for max_tokens 20, usage 20, warned only as a
     * tokenizer mismatch.
     */
    static Optional<RunWarning> outputBeyondMaxTokens(List<RequestMetrics> requests) {
        int compared = 0;
        int beyond = 0;
        int withinUsage = 0;
        RequestMetrics worst = null;
        for (RequestMetrics r : requests) {
            if (r.maxTokens() <= 0 || r.clientOutputTokens().isEmpty()) continue;
            compared++;
            int client = r.clientOutputTokens().getAsInt();
            if ((long) client <= (long) OUTPUT_BEYOND_MAX_TOKENS_FACTOR * r.maxTokens()
                    || client - r.maxTokens() < OUTPUT_BEYOND_MAX_TOKENS_MIN_EXCESS) continue;
            if (r.serverOutputTokens().isPresent() && r.serverOutputTokens().getAsInt() > r.maxTokens()) continue;
            beyond++;
            if (r.serverOutputTokens().isPresent()) withinUsage++;
            if (worst == null || excessRatio(r) > excessRatio(worst)) worst = r;
        }
        if (beyond == 0) return Optional.empty();
        String usage = worst.serverOutputTokens().isPresent()
                ? "its usage said " + worst.serverOutputTokens().getAsInt() : "no usage";
        String cause = withinUsage == 0 ? "the server ignored max_tokens (or a max_completion_tokens in --additional-sampling-params "
                + "replaced it)"
                : "the server ignored max_tokens or its usage is wrong";
        return Optional.of(new RunWarning(WarningCode.OUTPUT_BEYOND_MAX_TOKENS, String.format(Locale.ROOT,
                "%d of %d requests with a client count streamed far more output than their max_tokens (the most: "
                        + "%d tokens by the client tokenizer for max_tokens %d, %s; the server's usage within "
                        + "max_tokens for %d of them, absent for %d): %s. A client tokenizer that is not the model's "
                        + "does not explain more than %dx. llmperf's files and every figure counted by the client "
                        + "include the extra output; figures counted by the server's usage do not.",
                beyond, compared, worst.clientOutputTokens().getAsInt(), worst.maxTokens(), usage, withinUsage,
                beyond - withinUsage, cause, OUTPUT_BEYOND_MAX_TOKENS_FACTOR)));
    }

    private static double excessRatio(RequestMetrics r) {
        return (double) r.clientOutputTokens().getAsInt() / r.maxTokens();
    }

    /**
     * STREAM_LINES_IGNORED: {@code requests} of {@code recorded} had {@code lines} stream lines the SSE standard
     * ignores that are no comment; {@code example} is the first seen (printable, short). Empty when none did.
     */
    public static Optional<RunWarning> streamLinesIgnored(long requests, int recorded, long lines, String example) {
        if (requests <= 0) return Optional.empty();
        return Optional.of(new RunWarning(WarningCode.STREAM_LINES_IGNORED, requests + " of " + recorded
                + " request" + (recorded == 1 ? "" : "s") + " had stream lines without data: (" + lines + " line"
                + (lines == 1 ? "" : "s") + " in all, e.g. " + PrintableText.quote(example, EXAMPLE_LINE_CHARS)
                + "): skipped, as the SSE standard ignores "
                + "unknown fields, so any output they carried is missing from generated_text and the client's token "
                + "counts (output_tokens_client, llmperf's number_output_tokens); the server's usage, where sent, "
                + "still counts it. The server or a proxy does not frame its stream as SSE; check its version or "
                + "proxy."));
    }

    /**
     * MAX_TOKENS_EXCEEDED: successful requests whose server usage counted more output tokens than the
     * {@code max_tokens} sent. Judged by the server's count only: the client tokenizer may not be the model's, so
     * its count can exceed max_tokens with a server that honoured it. Successes only: the figures the warning says
     * include the extra tokens count nothing of a failed request (QA: "4 of 4 requests" on a run whose 4 all failed).
     */
    static Optional<RunWarning> maxTokensExceeded(List<RequestMetrics> requests) {
        int compared = 0;
        int exceeding = 0;
        long excessSum = 0;
        int maxExcess = 0;
        int maxExcessTokens = 0;
        int maxExcessLimit = 0;
        for (RequestMetrics r : requests) {
            if (!r.succeeded() || r.maxTokens() <= 0 || r.serverOutputTokens().isEmpty()) continue;
            compared++;
            int tokens = r.serverOutputTokens().getAsInt();
            int excess = tokens - r.maxTokens();
            if (excess <= 0) continue;
            exceeding++;
            excessSum += excess;
            if (excess > maxExcess) {
                maxExcess = excess;
                maxExcessTokens = tokens;
                maxExcessLimit = r.maxTokens();
            }
        }
        if (exceeding == 0) return Optional.empty();
        return Optional.of(new RunWarning(WarningCode.MAX_TOKENS_EXCEEDED, String.format(Locale.ROOT,
                "%d of %d requests with server usage returned more output tokens than their max_tokens, by %.1f "
                        + "on average and at most %d (%d tokens for max_tokens %d): the server did not honour "
                        + "max_tokens, or a max_completion_tokens in --additional-sampling-params replaced it. Every "
                        + "token count, throughput "
                        + "and TPOT includes the extra tokens.",
                exceeding, compared, (double) excessSum / exceeding, maxExcess, maxExcessTokens, maxExcessLimit)));
    }

    /**
     * END_MARKER_MISSING: {@code streams} successful streams ended cleanly after a finish reason but without the
     * API's end marker. Empty when none did.
     */
    public static Optional<RunWarning> endMarkerMissing(long streams, int succeeded) {
        if (streams <= 0) return Optional.empty();
        return Optional.of(new RunWarning(WarningCode.END_MARKER_MISSING, streams + " of " + succeeded
                + " successful stream" + (succeeded == 1 ? "" : "s") + " ended without data: [DONE] (Anthropic: "
                + "event: message_stop) after their finish reason: recorded as successes, as llmperf records them, "
                + "but the server does not end its streams as the API says; check its version or proxy."));
    }

    private static Optional<RunWarning> earlyStop(List<RequestMetrics> successes) {
        double[] ratios = successes.stream()
                .filter(r -> "stop".equals(r.finishReason()) && r.outputTokens().isPresent() && r.maxTokens() > 0)
                .mapToDouble(r -> (double) r.outputTokens().getAsInt() / r.maxTokens())
                .sorted()
                .toArray();
        if (ratios.length == 0 || ratios.length < EARLY_STOP_MIN_SHARE * successes.size()) {
            return Optional.empty();
        }
        double medianRatio = PandasStats.quantile(ratios, 0.5);
        if (medianRatio >= EARLY_STOP_MEDIAN_RATIO) return Optional.empty();
        double[] outputs = successes.stream()
                .filter(r -> "stop".equals(r.finishReason()) && r.outputTokens().isPresent() && r.maxTokens() > 0)
                .mapToDouble(r -> r.outputTokens().getAsInt())
                .sorted()
                .toArray();
        return Optional.of(new RunWarning(WarningCode.EARLY_STOP, String.format(Locale.ROOT,
                "%d of %d successful requests ended with finish_reason \"stop\" at a median %.0f%% of max_tokens "
                        + "(median %.0f output tokens): the model stopped early, so throughput is inflated compared "
                        + "with the length asked for. Force the length (ignore_eos or min_tokens, where the server "
                        + "supports them) or say so in the report.",
                ratios.length, successes.size(), 100 * medianRatio, PandasStats.quantile(outputs, 0.5))));
    }

    private static Optional<RunWarning> multiTokenChunks(List<RequestMetrics> successes) {
        long tokens = 0;
        long events = 0;
        int byServer = 0;
        int byClient = 0;
        for (RequestMetrics r : successes) {
            // a response in one event (--no-stream, or a server that sends it whole) has no gap to misread
            if (r.contentEvents() <= 1) continue;
            // the content events' tokens from n's own source, the ones per-token ITL divides by (EventTokenCounts:
            // the server's n spread over the events when n is the server's); else the client's output count, which
            // with reasoning would include the reasoning tokens (usage) while the events are content only: such a
            // request is not judged
            EventTokenCounts counts = r.contentEventGaps().eventTokens();
            long content = counts.total();
            if (content < 0) {
                if (r.outputTokens().isEmpty() || r.timeToFirstReasoningNanos().isPresent()) continue;
                content = r.outputTokens().getAsInt();
            }
            if (counts.counted() && counts.source() == OutputTokenPolicy.Source.SERVER_USAGE) byServer++;
            else byClient++;
            tokens += content;
            events += r.contentEvents();
        }
        if (events == 0) return Optional.empty();
        double perEvent = (double) tokens / events;
        if (perEvent <= MULTI_TOKEN_CHUNK_RATIO) return Optional.empty();
        String source = byClient == 0 ? "by the server's usage count"
                : byServer == 0 ? "by the client tokenizer's count, which may not be the model's"
                : "by the server's usage count for " + byServer + " of " + (byServer + byClient)
                + " requests, the client tokenizer's for the rest";
        boolean perTokenItl = successes.stream().anyMatch(r -> r.itlPerTokenCount() > 0);
        return Optional.of(new RunWarning(WarningCode.MULTI_TOKEN_CHUNKS, String.format(Locale.ROOT,
                "Content events carry %.1f output tokens each on average (%s): ITL (per event) is the gap between "
                        + "chunks, not between tokens. %s", perEvent, source, perTokenItl
                        ? "ITL (per token) splits each gap over its tokens; TPOT is the per-request average."
                        : "Use TPOT for per-token latency (ITL per token needs tokens per event: server usage or "
                        + "the client tokenizer's offsets).")));
    }

    /**
     * SERVER_TOKENS_DIFFER: the server's counter outside the client's bracket by more than this share of it (the
     * bracket already allows for the scrapes' exchanges; tokenizers of one text differ by tens of percent) ...
     */
    public static final double SERVER_TOKENS_DIFFER_SHARE = 0.15;
    /** ... and by at least this many tokens (a short window's few tokens are no sign). */
    public static final double SERVER_TOKENS_DIFFER_MIN_TOKENS = 10;
    /** The server's counter gives about one token per content event within this of 1 (0.75 to 1.5 with the ratio). */
    static final double ONE_PER_EVENT_BELOW = 0.25;

    /**
     * The server's own counters beside the client's counts over the same span (the two scrapes the counters run
     * between). Each client figure comes with the bracket the scrapes' exchanges leave: the server read its counters
     * at some instant inside each exchange, so it counted at least what the client received between the opening
     * exchange's end and the closing one's start ({@code Low}) and at most what it received from the opening's start
     * to the closing's end ({@code High}).
     *
     * @param serverOutput      the server's generation tokens over the span; null when it serves none
     * @param clientOutput      the tokens the client received in the span ({@code client_same_span.output_tokens})
     * @param contentEvents     the content events that arrived in the span
     * @param outputByUsage     every request that delivered tokens in the span counted them by the server's usage: the
     *                          client's figure is in the server's unit
     * @param wholeServer       the server's figures add up every model's series (other traffic included)
     * @param serverPrompt      the server's prompt tokens over the span; null when it serves none
     * @param clientPrompt      the input tokens of the requests whose first token came in the span; null when none
     * @param promptByUsage     those input tokens are the server's usage ({@code prompt_tokens}) for every request
     */
    public record ServerTokenCounts(Double serverOutput, double clientOutputLow, double clientOutput,
                                    double clientOutputHigh, int contentEvents, boolean outputByUsage,
                                    boolean wholeServer, Double serverPrompt, Long clientPromptLow, Long clientPrompt,
                                    Long clientPromptHigh, boolean promptByUsage) {
    }

    /**
     * {@code metrics} judged beside the server's own counters ({@code counts}): SERVER_TOKENS_DIFFER once, when its
     * output or its prompt tokens differ materially from the client's, saying why from both sources; and
     * MULTI_TOKEN_CHUNKS by the server's counter where the client counted with a tokenizer that is not the
     * server's: dropped when the server's counter gives one token per content event (the client's tokenizer made
     * the chunks look several tokens long, QA: a server keeping vLLM's /metrics, no usage, half the client's count),
     * and said by the server's count when that gives several. Unchanged when the counts agree.
     */
    public static RunMetrics besideServerCounts(RunMetrics metrics, ServerTokenCounts counts) {
        if (counts == null) return metrics;
        Optional<String> output = outputGap(counts);
        Optional<String> prompt = promptGap(counts, output.isPresent() && !counts.outputByUsage());
        if (output.isEmpty() && prompt.isEmpty()) return metrics;
        List<RunWarning> warnings = new ArrayList<>(metrics.warnings());
        if (output.isPresent() && !counts.outputByUsage() && counts.contentEvents() > 0) {
            double perEvent = counts.serverOutput() / counts.contentEvents();
            int at = indexOf(warnings, WarningCode.MULTI_TOKEN_CHUNKS);
            if (perEvent <= MULTI_TOKEN_CHUNK_RATIO) {
                if (at >= 0) warnings.remove(at);
            } else {
                RunWarning byServer = new RunWarning(WarningCode.MULTI_TOKEN_CHUNKS, String.format(Locale.ROOT,
                        "Content events carry %.1f output tokens each on average (by the server's generation-token "
                                + "counter over the same span: %.0f tokens in %d events; the client tokenizer, not the "
                                + "model's, counts otherwise): ITL (per event) is the gap between chunks, not between "
                                + "tokens. Use TPOT for per-token latency.", perEvent, counts.serverOutput(),
                        counts.contentEvents()));
                if (at >= 0) warnings.set(at, byServer);
                else warnings.add(byServer);
            }
        }
        String message = "The server's own token counters (its /metrics) and the client's counts differ over the same "
                + "span. " + output.map(o -> "Output tokens: " + o + (prompt.isPresent() ? " " : "")).orElse("")
                + prompt.map(p -> "Prompt tokens: " + p).orElse("");
        warnings.add(new RunWarning(WarningCode.SERVER_TOKENS_DIFFER, message));
        return metrics.withWarnings(warnings);
    }

    private static int indexOf(List<RunWarning> warnings, WarningCode code) {
        for (int i = 0; i < warnings.size(); i++) {
            if (warnings.get(i).code() == code) return i;
        }
        return -1;
    }

    /** Whether {@code server} lies outside [low, high] by more than the share and the tokens that make it material. */
    private static boolean material(double server, double low, double mid, double high) {
        boolean outside = server < low * (1 - SERVER_TOKENS_DIFFER_SHARE)
                || server > high * (1 + SERVER_TOKENS_DIFFER_SHARE);
        return outside && Math.abs(server - mid) >= SERVER_TOKENS_DIFFER_MIN_TOKENS;
    }

    /** The output tokens' gap and its cause, in words; empty when there is none to tell. */
    private static Optional<String> outputGap(ServerTokenCounts c) {
        if (c.serverOutput() == null || c.clientOutput() <= 0
                || !material(c.serverOutput(), c.clientOutputLow(), c.clientOutput(), c.clientOutputHigh())) {
            return Optional.empty();
        }
        double server = c.serverOutput();
        String figures = String.format(Locale.ROOT, "the server generated %.0f by its counter, the client "
                        + "received %.0f (%.0f-%.0f allowing for the scrapes' exchanges), %.2fx theirs%s.", server,
                c.clientOutput(), c.clientOutputLow(), c.clientOutputHigh(), server / c.clientOutput(),
                c.contentEvents() > 0 ? String.format(Locale.ROOT, ", in %d content events", c.contentEvents()) : "");
        String somethingElse = c.wholeServer()
                ? "the server's figures are the whole server's (no series for this model), other traffic included"
                : "other traffic, or tokens it generated and did not stream (several choices, discarded drafts)";
        if (c.outputByUsage()) {
            return Optional.of(figures + " The client counted by the server's own usage, so the counter counts "
                    + "something else than it streamed to this run: " + somethingElse + ". The client's figures "
                    + "follow the usage.");
        }
        String clientUnit = " Output tok/s, TPOT and ITL per token count the client tokenizer's tokens; --tokenizer "
                + "with the model's tokenizer (or a server that sends usage) counts the model's.";
        if (c.contentEvents() <= 0) {
            return Optional.of(figures + " The server sent no usage: the client tokenizer is not the model's, or "
                    + "the counter counts something else (" + somethingElse + ")." + clientUnit);
        }
        double perEvent = server / c.contentEvents();
        double clientPerEvent = c.clientOutput() / c.contentEvents();
        if (perEvent < 1 - ONE_PER_EVENT_BELOW) {
            return Optional.of(figures + String.format(Locale.ROOT, " The server sent no usage, and its counter gives "
                    + "%.2f tokens per content event, fewer than one: no tokenizer explains that (each event follows "
                    + "a token it generated), so the counter counts something else: %s.", perEvent, somethingElse));
        }
        if (perEvent <= MULTI_TOKEN_CHUNK_RATIO) {
            return Optional.of(figures + String.format(Locale.ROOT, " The server sent no usage; its counter gives "
                    + "%.2f tokens per content event, one token per chunk, where the client tokenizer counts %.2f: "
                    + "the client tokenizer is not the model's (%.2f of its tokens per server token), and the chunks "
                    + "do not carry several tokens (no MULTI_TOKEN_CHUNKS).", perEvent, clientPerEvent,
                    c.clientOutput() / server) + clientUnit);
        }
        return Optional.of(figures + String.format(Locale.ROOT, " The server sent no usage; its counter gives %.2f "
                + "tokens per content event, where the client tokenizer counts %.2f: the server sends several tokens "
                + "per chunk (MULTI_TOKEN_CHUNKS), and the client tokenizer is not the model's (%.2f of its tokens per "
                + "server token).", perEvent, clientPerEvent, c.clientOutput() / server) + clientUnit);
    }

    /**
     * The prompt tokens' gap and its cause, in words; empty when there is none to tell. {@code tokenizerDiffers}: the
     * output's gap already found the client tokenizer not the server's.
     */
    private static Optional<String> promptGap(ServerTokenCounts c, boolean tokenizerDiffers) {
        if (c.serverPrompt() == null || c.clientPrompt() == null || c.clientPrompt() <= 0
                || !material(c.serverPrompt(), c.clientPromptLow(), c.clientPrompt(), c.clientPromptHigh())) {
            return Optional.empty();
        }
        String figures = String.format(Locale.ROOT, "the server prefilled %.0f by its counter, where "
                        + "the requests whose first token came in the span had %d input tokens (%d-%d allowing for "
                        + "the scrapes' exchanges and when the server counts a prompt), %.2fx theirs.",
                c.serverPrompt(), c.clientPrompt(), c.clientPromptLow(), c.clientPromptHigh(),
                c.serverPrompt() / c.clientPrompt());
        if (c.promptByUsage()) {
            return Optional.of(figures + " Those are the server's own usage (prompt_tokens), so its counter counts "
                    + "something else than this run's prompts: " + (c.wholeServer()
                    ? "the whole server's prompts, other traffic included"
                    : "other traffic, or prompts it prefilled again (preempted requests)") + ".");
        }
        return Optional.of(figures + " The server sent no usage, so the input counts are the client's: "
                + (tokenizerDiffers ? "its tokenizer is not the model's (as the output tokens show), and it counts "
                + "no chat template" : "they count no chat template the server applies, and the client tokenizer "
                + "may not be the model's") + (c.wholeServer() ? "; the server's figures are the whole server's, "
                + "other traffic included" : "") + ". Input token figures are the client's.");
    }
}
