package io.llmperf4j.report.html;

import java.util.Objects;

/**
 * One level of a load sweep, as the sweep section of the report shows it. Latencies are in ms; NaN where a level
 * has no successful request (drawn as a gap, printed as "-").
 *
 * @param label                 how the level is named in the table, e.g. "concurrency 20" or "5 req/s"
 * @param loadValue             the level on the x axis (the concurrency or the rate)
 * @param loadUnit              the x axis' unit, e.g. "concurrency" or "req/s"; the same for every level
 * @param successes             successful requests
 * @param total                 recorded requests (successes, failures, cancellations)
 * @param outputTokensPerSecond system output throughput, tok/s
 * @param requestsPerSecond     successful requests per second
 * @param ttftP50Ms             TTFT median
 * @param ttftP90Ms             TTFT 90th percentile
 * @param e2eP50Ms              E2E latency median
 * @param e2eP90Ms              E2E latency 90th percentile
 */
public record SweepLevel(String label, double loadValue, String loadUnit, int successes, int total,
                         double outputTokensPerSecond, double requestsPerSecond, double ttftP50Ms, double ttftP90Ms,
                         double e2eP50Ms, double e2eP90Ms) {

    public SweepLevel {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(loadUnit, "loadUnit");
        if (!Double.isFinite(loadValue)) throw new IllegalArgumentException("loadValue (" + loadValue + ") must be finite");
        if (successes < 0 || total < successes) {
            throw new IllegalArgumentException("successes (" + successes + ") must be in [0, total (" + total + ")]");
        }
    }

    /** Failed requests, cancellations included. */
    public int failures() {
        return total - successes;
    }

    /** successes / total; NaN when nothing was recorded. */
    public double successRate() {
        return total == 0 ? Double.NaN : (double) successes / total;
    }
}
