package io.llmperf4j.report.metrics;

import io.llmperf4j.model.FailureKind;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Failed requests counted by {@link FailureKind} and by code ({@code Failure.code}: the HTTP status, the stream
 * error's code, or -1). Both maps hold only non-zero counts; kinds in enum order, codes ascending.
 *
 * @param failed   failed requests, cancellations included
 * @param recorded all recorded requests
 * @param byKind   failures per kind
 * @param byCode   failures per code
 */
public record ErrorBreakdown(int failed, int recorded, Map<FailureKind, Integer> byKind, Map<Integer, Integer> byCode) {

    public ErrorBreakdown {
        byKind = Collections.unmodifiableMap(byKind.isEmpty() ? new EnumMap<>(FailureKind.class) : new EnumMap<>(byKind));
        byCode = Collections.unmodifiableMap(new TreeMap<>(byCode));
    }

    /** Counts the failures among {@code requests}. */
    public static ErrorBreakdown of(List<RequestMetrics> requests) {
        Map<FailureKind, Integer> byKind = new EnumMap<>(FailureKind.class);
        Map<Integer, Integer> byCode = new TreeMap<>();
        int failed = 0;
        for (RequestMetrics request : requests) {
            if (request.succeeded()) continue;
            failed++;
            byKind.merge(request.failureKind(), 1, Integer::sum);
            byCode.merge(request.failureCode(), 1, Integer::sum);
        }
        return new ErrorBreakdown(failed, requests.size(), byKind, byCode);
    }

    /** failed / recorded; NaN without records. */
    public double errorRate() {
        return recorded == 0 ? Double.NaN : (double) failed / recorded;
    }

    /** Failures of one kind. */
    public int count(FailureKind kind) {
        return byKind.getOrDefault(kind, 0);
    }
}
