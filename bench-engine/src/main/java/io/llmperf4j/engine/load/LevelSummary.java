package io.llmperf4j.engine.load;

import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.RequestRecord;

import java.util.List;
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
 */
public record LevelSummary(double level, int successes, int total, double outputTokensPerSecond,
                           double requestsPerSecond, double ttftP50Millis, double ttftP90Millis, double e2eP50Millis,
                           double e2eP90Millis) {

    public LevelSummary {
        if (successes < 0 || total < successes) {
            throw new IllegalArgumentException("successes (" + successes + ") must be in [0, total (" + total + ")]");
        }
    }

    /**
     * Summarises a run's measured records counting output tokens by llmperf4j's one policy, as the report's
     * summary does.
     */
    public static LevelSummary of(LoadResult result, OutputTokenPolicy policy) {
        return of(result, policy::outputTokensOrZero);
    }

    /** Summarises a run's measured records. */
    public static LevelSummary of(LoadResult result, ToIntFunction<RequestRecord> outputTokens) {
        List<ScheduledRecord> measured = result.measuredTimeline();
        List<ScheduledRecord> ok = measured.stream().filter(r -> r.record().succeeded()).toList();
        long tokens = 0;
        for (ScheduledRecord r : ok) tokens += Math.max(0, outputTokens.applyAsInt(r.record()));
        double seconds = result.durationNanos() / 1e9;
        long[] ttft = nanos(ok, ScheduledRecord::ttftFromIntendedNanos);
        long[] e2e = nanos(ok, ScheduledRecord::e2eFromIntendedNanos);
        return new LevelSummary(result.settings().level(), ok.size(), measured.size(),
                seconds > 0 ? tokens / seconds : Double.NaN, seconds > 0 ? ok.size() / seconds : Double.NaN,
                millis(ttft, 50), millis(ttft, 90), millis(e2e, 50), millis(e2e, 90));
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
