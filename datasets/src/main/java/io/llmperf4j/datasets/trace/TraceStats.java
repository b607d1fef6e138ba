package io.llmperf4j.datasets.trace;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a trace asks of a server, before replaying it ({@code trace-stats}): input and output length distributions,
 * the arrival rate over time, and the prefix-cache hit rate a server would reach.
 *
 * <p>The predicted hit rate replays the {@code hash_ids} through an unbounded cache, as a vLLM-style engine caches:
 * only whole blocks within a prompt's first {@code input_length - 1} tokens are cacheable (the last token is always
 * computed); a request hits the leading blocks whose ids were cached before it, then caches its own; at a block
 * size B other than {@value Trace#BLOCK_TOKENS}, the hit prefix is rounded down to whole B-token blocks. Requests are
 * taken in trace order. A trace without hash ids predicts 0.
 *
 * <p>A trace with sessions ({@code session_id}) arrives as sessions: the arrivals, their rate and the rate over time
 * count each session's first turn (and each request without a session), as the replay sends them on their
 * timestamps; a later turn is sent its {@code delay} after the previous reply, so it is reported as turns per session
 * and think times, not as an arrival.
 *
 * @param requests        requests in the trace
 * @param spanMs          first to last timestamp
 * @param inputTokens     input lengths: min, p50, p90, p99, max, mean
 * @param outputTokens    output lengths, likewise
 * @param bucketMs        width of one arrival-rate bucket
 * @param arrivalsPerBucket arrivals ({@link Trace#arrivals()}: with sessions, their first turns) in each bucket from
 *                        the first
 * @param blockTokens     the block size of the prediction
 * @param cachedTokens    predicted cached prompt tokens
 * @param promptTokens    all prompt tokens
 * @param arrivals        the arrivals: every request, or with sessions the sessions (and requests without one)
 * @param arrivalSpanMs   first to last arrival
 * @param sessions        distinct sessions; 0 for a trace without sessions
 * @param turnsPerSession turns per session (min, p50, p90, p99, max, mean); null without sessions
 * @param thinkMs         the later turns' delays in ms, likewise (a delay not given counts 0); null without later turns
 */
public record TraceStats(int requests, long spanMs, double[] inputTokens, double[] outputTokens, long bucketMs,
                         int[] arrivalsPerBucket, int blockTokens, long cachedTokens, long promptTokens,
                         int arrivals, long arrivalSpanMs, int sessions, double[] turnsPerSession, double[] thinkMs) {

    /** Predicted cached / prompt tokens. */
    public double predictedHitRate() {
        return promptTokens == 0 ? 0 : (double) cachedTokens / promptTokens;
    }

    public static TraceStats of(Trace trace, int blockTokens, long bucketMs) {
        if (blockTokens < 1) throw new IllegalArgumentException("block size (" + blockTokens + ") must be >= 1");
        var rs = trace.requests();
        var arrivals = trace.arrivals();
        long span = trace.spanMs();
        long arrivalSpan = trace.arrivalSpanMs();
        long bucket = bucketMs > 0 ? bucketMs : Math.max(1, (arrivalSpan + 20) / 20);
        int[] buckets = new int[(int) Math.min(100_000, arrivalSpan / bucket + 1)];
        for (TraceRequest r : arrivals) buckets[(int) Math.min(buckets.length - 1, r.timestampMs() / bucket)]++;
        java.util.Map<String, Integer> turns = new java.util.LinkedHashMap<>();
        List<Double> think = new java.util.ArrayList<>();
        for (TraceRequest r : rs) {
            if (r.sessionId() == null) continue;
            if (turns.merge(r.sessionId(), 1, Integer::sum) > 1) think.add((double) Math.max(0, r.delayMs()));
        }
        Set<Long> cached = new HashSet<>();
        long hits = 0;
        long prompt = 0;
        for (TraceRequest r : rs) {
            prompt += r.inputLength();
            hits += cachedTokens(r, cached, blockTokens);
        }
        return new TraceStats(rs.size(), span, dist(rs.stream().mapToDouble(TraceRequest::inputLength).toArray()),
                dist(rs.stream().mapToDouble(TraceRequest::outputLength).toArray()), bucket, buckets, blockTokens,
                hits, prompt, arrivals.size(), arrivalSpan, turns.size(),
                turns.isEmpty() ? null : dist(turns.values().stream().mapToDouble(Integer::doubleValue).toArray()),
                think.isEmpty() ? null : dist(think.stream().mapToDouble(Double::doubleValue).toArray()));
    }

    /** The prompt tokens of {@code r} found in {@code cache}; then caches its cacheable blocks. */
    static long cachedTokens(TraceRequest r, Set<Long> cache, int blockTokens) {
        if (r.hashIds() == null) return 0;
        int cacheable = (r.inputLength() - 1) / Trace.BLOCK_TOKENS;
        int leading = 0;
        while (leading < cacheable && cache.contains(r.hashIds()[leading])) leading++;
        for (int k = 0; k < cacheable; k++) cache.add(r.hashIds()[k]);
        long hit = Math.min((long) leading * Trace.BLOCK_TOKENS, r.inputLength() - 1L);
        return hit / blockTokens * blockTokens;
    }

    private static double[] dist(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        double sum = 0;
        for (double v : s) sum += v;
        return new double[] {s[0], q(s, 0.5), q(s, 0.9), q(s, 0.99), s[s.length - 1], sum / s.length};
    }

    /** Linear interpolation between closest ranks (numpy's default). */
    private static double q(double[] sorted, double p) {
        double pos = p * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }

    /** The report {@code trace-stats} prints. */
    public String render(Trace trace) {
        StringBuilder b = new StringBuilder();
        if (sessions == 0) {
            double meanRate = trace.meanRequestsPerSecond();
            b.append(String.format(Locale.ROOT, "Trace %s (%s): %d %s over %.3f s (%s)%n", trace.file(),
                    trace.format(), requests, requests == 1 ? "request" : "requests", spanMs / 1000.0,
                    Double.isNaN(meanRate) ? "all at one timestamp: no mean rate"
                            : "mean " + significant(meanRate) + " req/s"));
        } else {
            // sessions arrive; their later turns follow their replies after a delay, the timestamps only order them
            double meanRate = trace.meanArrivalsPerSecond();
            // a request without a session arrives on its own: in the words of the replay's load line
            int singles = arrivals - sessions;
            int inSessions = requests - singles;
            String what = singles == 0 ? arrivals + (arrivals == 1 ? " session" : " sessions")
                    : arrivals + " arrivals: " + sessions + (sessions == 1 ? " session (" : " sessions (") + inSessions
                    + (inSessions == 1 ? " request)" : " requests)") + " and " + singles
                    + (singles == 1 ? " single request," : " single requests,");
            b.append(String.format(Locale.ROOT, "Trace %s (%s): %d %s; %s starting over %.3f s (%s)%n",
                    trace.file(), trace.format(), requests, requests == 1 ? "request" : "requests", what,
                    arrivalSpanMs / 1000.0, Double.isNaN(meanRate) ? "all at one timestamp: no mean rate"
                            : "mean " + significant(meanRate) + (arrivals == sessions ? " sessions/s"
                            : " arrivals/s")));
        }
        if (trace.failedRows() > 0) { // BurstGPT: failed in the service, no output length to replay
            b.append(String.format(Locale.ROOT, "Skipped: %d failed %s (Response tokens 0), as vLLM's BurstGPT "
                    + "loader drops them%n", trace.failedRows(), trace.failedRows() == 1 ? "row" : "rows"));
        }
        b.append(String.format(Locale.ROOT, "%-14s %8s %8s %8s %8s %8s %10s%n", "tokens", "min", "p50", "p90", "p99",
                "max", "mean"));
        row(b, "input (ISL)", inputTokens);
        row(b, "output (OSL)", outputTokens);
        if (turnsPerSession != null) {
            row(b, "turns/session", turnsPerSession);
            if (thinkMs != null) row(b, "think (ms)", thinkMs); // a later turn's delay after the previous reply
        }
        // requests as well as the rate, with significant digits: a long trace's buckets are hours wide, and a rate
        // printed to two decimals read 0.00 beside a full-width bar
        b.append(String.format(Locale.ROOT, sessions == 0
                ? "Arrival rate over time (requests and req/s per %.3f s bucket):%n"
                : "Arrival rate over time (session starts and starts/s per %.3f s bucket; later turns follow their "
                + "delays):%n", bucketMs / 1000.0));
        int max = Arrays.stream(arrivalsPerBucket).max().orElse(1);
        for (int i = 0; i < arrivalsPerBucket.length; i++) {
            double rate = arrivalsPerBucket[i] / (bucketMs / 1000.0);
            b.append(String.format(Locale.ROOT, "  %9.3f s %7d %9.3g %s%n", i * bucketMs / 1000.0,
                    arrivalsPerBucket[i], rate, "#".repeat(max == 0 ? 0 : (int) Math.round(40.0 * arrivalsPerBucket[i] / max))));
        }
        b.append(String.format(Locale.ROOT, "Theoretical prefix-cache hit rate (blocks of %d tokens, unbounded "
                        + "cache): %.2f %% (%d of %d prompt tokens)%n", blockTokens, 100 * predictedHitRate(),
                cachedTokens, promptTokens));
        return b.toString();
    }

    /** 3 significant digits without trailing zeros (2.67, 1.5, 2, 1230), as the replay's load line prints the rate. */
    static String significant(double v) {
        return new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
    }

    private static void row(StringBuilder b, String name, double[] d) {
        b.append(String.format(Locale.ROOT, "%-14s %8.0f %8.1f %8.1f %8.1f %8.0f %10.1f%n", name, d[0], d[1], d[2],
                d[3], d[4], d[5]));
    }
}
