package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * One load level in the figures the seed script prints per level and its sweep table uses; the input of
 * {@link SaturationVerdict#evaluate}. Throughput and latencies count successful measured requests only (llmperf
 * leaves errored requests out the same way). Latencies count from the intended send, so in an open loop they
 * include queueing; in a closed loop intended and actual sends coincide. Percentiles interpolate linearly between
 * the two nearest ranks (numpy's default); NaN when nothing succeeded.
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

    /** Summarises a run's measured records. */
    public static LevelSummary of(LoadResult result, ToIntFunction<RequestRecord> outputTokens) {
        List<ScheduledRecord> measured = result.measuredTimeline();
        List<ScheduledRecord> ok = measured.stream().filter(r -> r.record().succeeded()).toList();
        long tokens = 0;
        for (ScheduledRecord r : ok) tokens += Math.max(0, outputTokens.applyAsInt(r.record()));
        double seconds = result.durationNanos() / 1e9;
        double[] ttft = millis(ok, ScheduledRecord::ttftFromIntendedNanos);
        double[] e2e = millis(ok, ScheduledRecord::e2eFromIntendedNanos);
        return new LevelSummary(result.settings().level(), ok.size(), measured.size(),
                seconds > 0 ? tokens / seconds : Double.NaN, seconds > 0 ? ok.size() / seconds : Double.NaN,
                percentile(ttft, 50), percentile(ttft, 90), percentile(e2e, 50), percentile(e2e, 90));
    }

    public int failures() {
        return total - successes;
    }

    /** Failed share of the recorded requests; 0 when none was recorded. */
    public double failureRate() {
        return total == 0 ? 0 : (double) failures() / total;
    }

    /**
     * The {@code p}-th percentile (0..100) by linear interpolation between closest ranks (numpy's default);
     * NaN for no values.
     */
    public static double percentile(double[] values, double p) {
        if (values.length == 0) return Double.NaN;
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double rank = p / 100.0 * (sorted.length - 1);
        int lo = (int) Math.floor(rank);
        int hi = (int) Math.ceil(rank);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
    }

    private static double[] millis(List<ScheduledRecord> records, ToLongFunction<ScheduledRecord> nanos) {
        return records.stream().mapToLong(nanos).filter(v -> v >= 0).mapToDouble(v -> v / 1e6).toArray();
    }
}
