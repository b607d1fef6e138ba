package io.llmperf4j.engine.harness;

import java.util.Arrays;
import java.util.Objects;

/**
 * One iteration window of a fork. Output tokens are attributed to the window in which they arrived: a request's
 * token count is spread over its content events as the tokens each carried, so a request that straddles windows
 * counts in each for what it delivered there (successes, and requests cut at the end of the fork or failed
 * mid-stream, counted by {@link io.llmperf4j.model.ServerTokensPerEvent}'s rule). Requests count, and give latency
 * samples, in the window in which they ended.
 *
 * @param fork                  1-based fork number
 * @param type                  warmup or measurement
 * @param index                 1-based within its type
 * @param startOffsetNanos      the window's start, from the fork's load start
 * @param durationNanos         the window's length
 * @param outputTokens          output tokens that arrived in the window (fractional: spread over events)
 * @param requestsCompleted     successful requests that ended in the window
 * @param requestsFailed        failed requests that ended in the window (cancellations at the fork's end excluded)
 * @param ttftMillis            TTFT of each success that ended in the window, from the intended send; owned by the
 *                              record, never mutate
 * @param tpotMillis            TPOT of each such success that has one, by the summary's definition
 *                              ({@link io.llmperf4j.model.OutputTokenPolicy#tpotNanos(io.llmperf4j.model.RequestRecord,
 *                              int, boolean)}: (E2E − TTFT) / (n − 1), n ≥ 2, the reasoning rule)
 * @param e2eMillis             E2E of each such success, from the intended send
 */
public record IterationResult(int fork, IterationType type, int index, long startOffsetNanos, long durationNanos,
                              double outputTokens, int requestsCompleted, int requestsFailed, double[] ttftMillis,
                              double[] tpotMillis, double[] e2eMillis) {

    public IterationResult {
        Objects.requireNonNull(type, "type");
        ttftMillis = ttftMillis == null ? new double[0] : ttftMillis;
        tpotMillis = tpotMillis == null ? new double[0] : tpotMillis;
        e2eMillis = e2eMillis == null ? new double[0] : e2eMillis;
    }

    /** The primary score: output tokens per second of the window. */
    public double outputTokensPerSecond() {
        return outputTokens / (durationNanos / 1e9);
    }

    public double requestsPerSecond() {
        return requestsCompleted / (durationNanos / 1e9);
    }

    /** Mean TTFT of the window's successes; NaN without any. */
    public double meanTtftMillis() {
        return mean(ttftMillis);
    }

    /** Mean TPOT of the window's successes; NaN without any. */
    public double meanTpotMillis() {
        return mean(tpotMillis);
    }

    private static double mean(double[] v) {
        return v.length == 0 ? Double.NaN : Arrays.stream(v).average().getAsDouble();
    }
}
