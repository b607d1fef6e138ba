package io.llmperf4j.report.metrics;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.WindowTokens;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every output token the client received inside the measured window, whatever became of its request: successful
 * requests' tokens and those a cancelled or failed request had already delivered. llmperf's output throughput
 * ({@link RunMetrics#outputTokensPerSecond()}) counts successful requests alone over the same window, so a run whose
 * timeout cancels requests in flight reads lower there than the server's own generation counter does; this figure
 * is the one to set beside the server's.
 *
 * <p>Each request's tokens count where they arrived by llmperf4j's one rule for a window's tokens
 * ({@link WindowTokens}, which the iterations' windows and a sweep level's held window use too): its n (its token
 * source's count, {@link TokenCounting#policy()}) spread over its content events as the tokens each carried by that
 * source, and a request that ended without the server's usage but received content events (cancelled by the run's
 * end or a timeout, failed mid-stream), with the server's usage preferred, the server's tokens per content event over
 * the run's (and warmup's) successful requests with usage for each event it received. An event counts when its
 * wall-clock arrival (the send's wall time plus its offset) lies inside the window. Its edges are widened by
 * {@value #EDGE_MILLIS} ms: the window's start is known to the millisecond only, and a request's wall time is read
 * apart from the run's (the window now ends at the last answer's end on the wire, microseconds after its last event,
 * so with one millisecond a last token fell outside now and then). Warmup requests are not among the run's
 * records, but the window opens at the first measured send while the warmup's last requests are still streaming (a
 * closed loop re-sends as each warmup request ends; an open loop's measured arrivals follow the warmup's on
 * schedule): what they deliver inside the window counts here too, as the server's counter counts it, and only here.
 *
 * @param tokens        output tokens delivered inside the window (fractional where a request straddles an edge)
 * @param fromFailed    of which delivered by requests that did not succeed (cancelled ones included; a warmup
 *                      request counts by its own outcome)
 * @param tokensPerSecond {@code tokens} / the window's seconds; NaN for a zero-length window
 */
public record DeliveredTokens(double tokens, double fromFailed, double tokensPerSecond) {

    private static final long MILLI = 1_000_000L;
    /** How far the window's edges are widened, in ms. */
    static final int EDGE_MILLIS = 2;
    private static final double NANOS_PER_SECOND = 1e9;

    /** The tokens {@code run}'s records delivered inside its window, counted as {@code counting} says. */
    public static DeliveredTokens of(BenchmarkRun run, TokenCounting counting) {
        return of(run, List.of(), counting);
    }

    /**
     * The tokens {@code run}'s records and its {@code warmup} records delivered inside its window, counted as
     * {@code counting} says.
     */
    public static DeliveredTokens of(BenchmarkRun run, List<RequestRecord> warmup, TokenCounting counting) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(counting, "counting");
        long windowStart = run.startEpochMillis() * MILLI - EDGE_MILLIS * MILLI;
        long windowEnd = run.startEpochMillis() * MILLI + run.durationNanos() + EDGE_MILLIS * MILLI;
        double[] sums = new double[2]; // tokens, of which from requests that did not succeed
        List<RequestRecord> all = new ArrayList<>(run.records());
        all.addAll(warmup);
        WindowTokens rule = WindowTokens.of(all, counting.policy());
        for (RequestRecord r : all) {
            double inside = rule.between(r, r.startEpochMicros() * 1_000L, windowStart, windowEnd);
            sums[0] += inside;
            if (!r.succeeded()) sums[1] += inside;
        }
        double seconds = run.durationNanos() / NANOS_PER_SECOND;
        double tokens = tidy(sums[0]);
        return new DeliveredTokens(tokens, tidy(sums[1]), run.durationNanos() > 0 ? tokens / seconds : Double.NaN);
    }

    /**
     * The tokens {@code run}'s records and its {@code warmup} records delivered from {@code fromEpochNanos} to
     * {@code toEpochNanos} (wall clock, both included), by the same rule as the window's: what the client received
     * between two instants that are not the window's edges (two scrapes of the server's metrics).
     */
    public static double between(BenchmarkRun run, List<RequestRecord> warmup, TokenCounting counting,
                                  long fromEpochNanos, long toEpochNanos) {
        List<RequestRecord> all = new ArrayList<>(run.records());
        all.addAll(warmup);
        WindowTokens rule = WindowTokens.of(all, counting.policy());
        double sum = 0;
        for (RequestRecord r : all) sum += rule.between(r, r.startEpochMicros() * 1_000L, fromEpochNanos, toEpochNanos);
        return tidy(sum);
    }

    /**
     * {@code sum} to a millionth of a token: the even shares add up with float noise (a failed request's 19 tokens
     * summed to 19.000000000000004 in a summary), while a share cut at a window edge is kept.
     */
    static double tidy(double sum) {
        return Math.round(sum * 1e6) / 1e6;
    }
}
