package io.llmperf4j.report.metrics;

import java.util.List;
import java.util.Objects;

/**
 * Requests that met an {@link Slo}. {@code goodRequestsPerSecond} = good requests / run seconds (vLLM's goodput);
 * {@code goodFraction} = good / recorded requests, failures included in the denominator (AIPerf's
 * good_request_fraction), so a run that sheds load by failing requests does not look better.
 *
 * @param slo                   the objective
 * @param goodRequests          successful requests meeting every bound
 * @param recordedRequests      all recorded requests, failures included
 * @param goodRequestsPerSecond good requests per second of run time; NaN for a zero-length run
 * @param goodFraction          good / recorded; NaN without records
 * @param ttftViolations        successful requests that missed the TTFT bound (0 without one)
 * @param tpotViolations        successful requests that missed the TPOT bound
 * @param e2eViolations         successful requests that missed the E2E bound
 */
public record Goodput(
        Slo slo,
        int goodRequests,
        int recordedRequests,
        double goodRequestsPerSecond,
        double goodFraction,
        int ttftViolations,
        int tpotViolations,
        int e2eViolations) {

    public Goodput {
        Objects.requireNonNull(slo, "slo");
    }

    /** Judges {@code requests} (all recorded, failures included) against {@code slo}. */
    public static Goodput of(Slo slo, List<RequestMetrics> requests, long durationNanos) {
        int good = 0;
        int ttft = 0;
        int tpot = 0;
        int e2e = 0;
        for (RequestMetrics request : requests) {
            if (!request.succeeded()) continue;
            boolean meetsTtft = slo.meetsTtft(request);
            boolean meetsTpot = slo.meetsTpot(request);
            boolean meetsE2e = slo.meetsE2e(request);
            if (!meetsTtft) ttft++;
            if (!meetsTpot) tpot++;
            if (!meetsE2e) e2e++;
            if (meetsTtft && meetsTpot && meetsE2e) good++;
        }
        double perSecond = durationNanos > 0 ? good / (durationNanos / 1e9) : Double.NaN;
        double fraction = requests.isEmpty() ? Double.NaN : (double) good / requests.size();
        return new Goodput(slo, good, requests.size(), perSecond, fraction, ttft, tpot, e2e);
    }
}
