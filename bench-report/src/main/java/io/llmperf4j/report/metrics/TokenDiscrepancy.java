package io.llmperf4j.report.metrics;

import java.util.List;

/**
 * Client against server output token counts, over the successful requests that have both: the client tokenizer's
 * count minus its special tokens ({@link TokenCounting#clientSpecialTokens()}) and {@code usage.completion_tokens}.
 * Differences are client − server. Undefined values are NaN (no request with both counts).
 *
 * @param requestsCompared              successful requests with both counts
 * @param requestsDiffering             of those, how many counts differ
 * @param meanAbsoluteDifference        mean |client − server|
 * @param maxAbsoluteDifference         max |client − server|; 0 when nothing was compared
 * @param meanSignedDifference          mean (client − server): positive when the client counts more
 * @param clientSpecialTokensSubtracted the special tokens subtracted from each client count
 */
public record TokenDiscrepancy(
        int requestsCompared,
        int requestsDiffering,
        double meanAbsoluteDifference,
        int maxAbsoluteDifference,
        double meanSignedDifference,
        int clientSpecialTokensSubtracted) {

    /** Compares the counts of the successful {@code requests}. */
    public static TokenDiscrepancy of(List<RequestMetrics> requests, TokenCounting counting) {
        int compared = 0;
        int differing = 0;
        long sumAbs = 0;
        long sumSigned = 0;
        int maxAbs = 0;
        for (RequestMetrics request : requests) {
            if (!request.succeeded() || request.clientOutputTokens().isEmpty()
                    || request.serverOutputTokens().isEmpty()) {
                continue;
            }
            int difference = request.clientOutputTokens().getAsInt() - request.serverOutputTokens().getAsInt();
            compared++;
            if (difference != 0) differing++;
            sumAbs += Math.abs(difference);
            sumSigned += difference;
            maxAbs = Math.max(maxAbs, Math.abs(difference));
        }
        double meanAbs = compared == 0 ? Double.NaN : (double) sumAbs / compared;
        double meanSigned = compared == 0 ? Double.NaN : (double) sumSigned / compared;
        return new TokenDiscrepancy(compared, differing, meanAbs, maxAbs, meanSigned, counting.clientSpecialTokens());
    }

    /** Percentage of compared requests whose counts differ; NaN when nothing was compared. */
    public double percentDiffering() {
        return requestsCompared == 0 ? Double.NaN : 100.0 * requestsDiffering / requestsCompared;
    }
}
