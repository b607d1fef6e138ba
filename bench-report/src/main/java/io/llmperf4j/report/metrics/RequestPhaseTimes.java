package io.llmperf4j.report.metrics;

import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One request's {@link Phase} durations, derived once from its raw milestones ({@link RequestRecord#phases()},
 * {@link RequestRecord#connectNanos()}, {@code ttftNanos}, {@code lastContentNanos}, {@code e2eNanos}). A phase
 * whose milestones were not measured is absent. When the response headers arrived before the request was fully
 * written (a server may answer early), the write ends at the headers, so the TTFT terms still add up.
 *
 * @param newConnection true when the request opened its connection, false when it reused one, null when unknown
 * @param durations     the known phases, in nanoseconds
 * @param ttftTimed     true when every TTFT term is known: wait + connect + write + server + first content = TTFT
 */
public record RequestPhaseTimes(Boolean newConnection, Map<Phase, Long> durations, boolean ttftTimed) {

    /** No milestone known. */
    public static final RequestPhaseTimes UNKNOWN = new RequestPhaseTimes(null, Map.of(), false);

    public RequestPhaseTimes {
        durations = durations.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new EnumMap<>(durations));
    }

    /** The phases of {@code record}. */
    public static RequestPhaseTimes of(RequestRecord record) {
        RequestPhases p = record.phases();
        long connect = record.connectNanos();
        long ready = p.connectionReadyNanos();
        long written = p.requestWrittenNanos();
        long headers = p.responseHeadersNanos();
        long ttft = record.ttftNanos();
        long last = record.lastContentNanos();
        long e2e = record.e2eNanos();
        Map<Phase, Long> d = new EnumMap<>(Phase.class);
        Boolean fresh = connect >= 0 ? Boolean.TRUE : ready >= 0 ? Boolean.FALSE : null;
        if (connect >= 0) d.put(Phase.CONNECT, connect);
        else if (ready >= 0) d.put(Phase.CONNECT, 0L);
        if (p.tlsNanos() >= 0) d.put(Phase.TLS, p.tlsNanos());
        if (ready >= 0) d.put(Phase.CONNECTION_WAIT, Math.max(0, ready - Math.max(0, connect)));
        long writeEnd = written >= 0 && headers >= 0 ? Math.min(written, headers) : written;
        if (ready >= 0 && writeEnd >= 0) d.put(Phase.REQUEST_WRITE, writeEnd - ready);
        if (writeEnd >= 0 && headers >= 0) d.put(Phase.RESPONSE_HEADERS, headers - writeEnd);
        if (headers >= 0 && ttft >= 0) d.put(Phase.FIRST_CONTENT, ttft - headers);
        if (ttft >= 0 && last >= 0) d.put(Phase.CONTENT, last - ttft);
        if (last >= 0 && e2e >= 0) d.put(Phase.TAIL, e2e - last);
        boolean timed = ready >= 0 && written >= 0 && headers >= 0 && ttft >= 0;
        if (timed) {
            // the wait absorbs whatever rounding put the ready stamp before the connect ended
            long sum = d.get(Phase.CONNECTION_WAIT) + d.get(Phase.CONNECT) + d.get(Phase.REQUEST_WRITE)
                    + d.get(Phase.RESPONSE_HEADERS) + d.get(Phase.FIRST_CONTENT);
            d.put(Phase.CONNECTION_WAIT, d.get(Phase.CONNECTION_WAIT) + ttft - sum);
        }
        return d.isEmpty() && fresh == null ? UNKNOWN : new RequestPhaseTimes(fresh, d, timed);
    }

    /** The phase's duration in nanoseconds; absent when not measured. */
    public OptionalLong nanos(Phase phase) {
        Long v = durations.get(phase);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
