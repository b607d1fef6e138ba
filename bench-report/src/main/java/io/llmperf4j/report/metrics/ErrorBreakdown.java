package io.llmperf4j.report.metrics;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.ServerGone;
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
 * @param earlier  a sweep's earlier levels' answer when the sweep's verdict read this level's refused connections as
 *                 the server gone since one of them ({@link ServerGone.Earlier}); null otherwise
 */
public record ErrorBreakdown(int failed, int recorded, Map<FailureKind, Integer> byKind, Map<Integer, Integer> byCode,
                             ServerGone.Earlier earlier) {

    public ErrorBreakdown {
        byKind = Collections.unmodifiableMap(byKind.isEmpty() ? new EnumMap<>(FailureKind.class) : new EnumMap<>(byKind));
        byCode = Collections.unmodifiableMap(new TreeMap<>(byCode));
    }

    /** Failures read alone. */
    public ErrorBreakdown(int failed, int recorded, Map<FailureKind, Integer> byKind, Map<Integer, Integer> byCode) {
        this(failed, recorded, byKind, byCode, null);
    }

    /** Counts the failures among {@code requests}. */
    public static ErrorBreakdown of(List<RequestMetrics> requests) {
        return of(requests, null);
    }

    /** Counts the failures among {@code requests}, a sweep's level read with its earlier levels' answer. */
    public static ErrorBreakdown of(List<RequestMetrics> requests, ServerGone.Earlier earlier) {
        Map<FailureKind, Integer> byKind = new EnumMap<>(FailureKind.class);
        Map<Integer, Integer> byCode = new TreeMap<>();
        int failed = 0;
        for (RequestMetrics request : requests) {
            if (request.succeeded()) continue;
            failed++;
            byKind.merge(request.failureKind(), 1, Integer::sum);
            byCode.merge(request.failureCode(), 1, Integer::sum);
        }
        return new ErrorBreakdown(failed, requests.size(), byKind, byCode, earlier);
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
