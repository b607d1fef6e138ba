package io.llmperf4j.report.metrics;

import io.llmperf4j.model.FailureKind;

import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Requests that met an {@link Slo}. {@code goodRequestsPerSecond} = good requests / run seconds (vLLM's goodput);
 * {@code goodFraction} = good / judged requests, failures included in the denominator (AIPerf's
 * good_request_fraction), so a run that sheds load by failing requests does not look better. A request the client
 * cancelled (the run's or a search level's end, {@link FailureKind#CANCELLED}) is censored: it is judged (not good)
 * when it had already outlived a TTFT or E2E bound ({@link Slo#outlivedBy}), else left out, since it might still have
 * met them.
 *
 * @param slo                   the objective
 * @param goodRequests          successful requests meeting every bound
 * @param recordedRequests      all recorded requests, failures and cancellations included
 * @param judgedRequests        the recorded requests less the censored: good_fraction's denominator
 * @param goodRequestsPerSecond good requests per second of run time; NaN for a zero-length run
 * @param goodFraction          good / judged; NaN without any judged
 * @param ttftViolations        successful requests that missed the TTFT bound (0 without one)
 * @param tpotViolations        successful requests that missed the TPOT bound
 * @param e2eViolations         successful requests that missed the E2E bound
 * @param fromIntendedSend      TTFT and E2E were judged from the intended send (send lags given: an open loop, or sessions)
 */
public record Goodput(
        Slo slo,
        int goodRequests,
        int recordedRequests,
        int judgedRequests,
        double goodRequestsPerSecond,
        double goodFraction,
        int ttftViolations,
        int tpotViolations,
        int e2eViolations,
        boolean fromIntendedSend) {

    public Goodput {
        Objects.requireNonNull(slo, "slo");
    }

    /** Cancelled requests left out of the denominator, not yet past any TTFT or E2E bound. */
    public int censoredRequests() {
        return recordedRequests - judgedRequests;
    }

    /**
     * Judges {@code requests} (all recorded, failures and cancellations included) against {@code slo}, TTFT and E2E
     * from the actual send (a closed loop).
     */
    public static Goodput of(Slo slo, List<RequestMetrics> requests, long durationNanos) {
        return of(slo, requests, null, durationNanos);
    }

    /**
     * The same with TTFT and E2E from the intended send: {@code sendLagNanos} gives each request's send lag (actual
     * minus intended send, ns); null for a closed loop (no lag).
     */
    public static Goodput of(Slo slo, List<RequestMetrics> requests, ToLongFunction<RequestMetrics> sendLagNanos,
                             long durationNanos) {
        ToLongFunction<RequestMetrics> lags = sendLagNanos == null ? r -> 0 : sendLagNanos;
        int good = 0;
        int ttft = 0;
        int tpot = 0;
        int e2e = 0;
        int censored = 0;
        for (RequestMetrics request : requests) {
            long lag = Math.max(0, lags.applyAsLong(request));
            if (request.failureKind() == FailureKind.CANCELLED && !slo.outlivedBy(request, lag)) {
                censored++;
                continue;
            }
            if (!request.succeeded()) continue;
            boolean meetsTtft = slo.meetsTtft(request, lag);
            boolean meetsTpot = slo.meetsTpot(request);
            boolean meetsE2e = slo.meetsE2e(request, lag);
            if (!meetsTtft) ttft++;
            if (!meetsTpot) tpot++;
            if (!meetsE2e) e2e++;
            if (meetsTtft && meetsTpot && meetsE2e) good++;
        }
        double perSecond = durationNanos > 0 ? good / (durationNanos / 1e9) : Double.NaN;
        int judged = requests.size() - censored;
        double fraction = judged == 0 ? Double.NaN : (double) good / judged;
        return new Goodput(slo, good, requests.size(), judged, perSecond, fraction, ttft, tpot, e2e,
                sendLagNanos != null);
    }
}
