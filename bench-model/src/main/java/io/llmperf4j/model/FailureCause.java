package io.llmperf4j.model;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one failure points at, by its kind and code (METRICS.md §6): a 3xx (a redirect, which the client does not
 * follow), a 4xx other than 408/429 (an HTTP status, or the code of an error in the stream before any token) or a
 * failed connection is the client's configuration (or a server that is not there); a coded error in the stream after
 * tokens is the server failing while serving, whatever its code ({@link #of(FailureKind, Integer, boolean)}); a failed
 * connection after the server had answered (a response of the same run had begun: its headers, its first content or a
 * success's end, {@link ServerGone.Request#answeredAtEpochMicros()}) is the server going away (a restart, a crash, an
 * out-of-memory kill), since the same URL worked ({@link ServerGone} says after how many successes, or before any);
 * 429, 408, 5xx, timeouts and dropped connections may be the server's capacity; a cancellation at the run's end and a
 * request lost with a load worker say nothing about the server; the rest (malformed or cut-short streams, errors
 * without a code, client errors) points at neither. The one definition: the report's REQUESTS_FAILED warning, the
 * page and the sweep's verdict all read it.
 */
public enum FailureCause {
    CONFIGURATION,
    CAPACITY,
    CANCELLED,
    LOST,
    OTHER,
    /**
     * A connection that failed after the server had answered a request of the same run (its response headers, its
     * first content, or a success): the server stopped accepting them.
     */
    SERVER_UNAVAILABLE;

    /**
     * The failures that may be the server's capacity ({@link #CAPACITY}), in the words the page's Errors sentence and
     * compare's line list them: one list, so a sign the rule gains ({@link #of(FailureKind, Integer, boolean)}'s error
     * events after tokens) is named wherever it is counted.
     */
    public static final String CAPACITY_SIGNS = "429, 408, 5xx, timeouts, dropped connections, error events after "
            + "tokens";

    /** For {@link #of(FailureKind, Integer, boolean, long, long)}: the server answered no request of the run. */
    public static final long NEVER_SERVED = Long.MAX_VALUE;

    /**
     * The cause of a failure of {@code kind} with {@code code} (the HTTP status or stream error's code; null or -1:
     * none), not knowing what the run's other requests did.
     */
    public static FailureCause of(FailureKind kind, Integer code) {
        return of(kind, code, false);
    }

    /**
     * As {@link #of(FailureKind, Integer)}, knowing whether the failure came after the server had streamed tokens
     * ({@code afterTokens}: content or reasoning). An error event with a code after tokens is the server failing while
     * serving, as a 5xx would say, whatever the code: it had accepted the request and was generating (vLLM's
     * create_streaming_error_response says 400 for any exception in its generator, an engine error included). One
     * without a code stays {@link #OTHER}, worded as such. Before any token the code is read as an HTTP status's: a
     * 4xx in the first event is the server refusing the request (servers that validate inside their generator, and
     * gateways, send it so after their 200), the configuration's (model id, max_tokens, a prompt longer than the
     * model's context); a server that fails before its first token and says 400 is blamed on it too, which the
     * warning's message (the server's own words) lets the user see.
     */
    public static FailureCause of(FailureKind kind, Integer code, boolean afterTokens) {
        boolean coded = code != null && code >= 0;
        return switch (kind) {
            case CANCELLED -> CANCELLED;
            case LOST -> LOST;
            case CONNECT_FAILED -> CONFIGURATION;
            case IDLE_TIMEOUT, REQUEST_TIMEOUT, CONNECTION_CLOSED -> CAPACITY;
            case ERROR_IN_STREAM -> afterTokens && coded ? CAPACITY : ofCode(code);
            case HTTP_STATUS -> ofCode(code);
            default -> OTHER;
        };
    }

    /** An HTTP status, or the code of an error in the stream before any token; null or -1: none. */
    private static FailureCause ofCode(Integer code) {
        if (code == null || code < 0) return OTHER;
        if (code == 429 || code == 408 || code >= 500) return CAPACITY;
        return code >= 300 && code < 500 ? CONFIGURATION : OTHER; // 3xx: a redirect, never followed
    }

    /**
     * As {@link #of(FailureKind, Integer, boolean)} for a request of a run sent at {@code startEpochMicros}: a failed
     * connection sent after {@code servedEpochMicros} (when the server first answered, {@link #servedSince}) is
     * {@link #SERVER_UNAVAILABLE}: the same URL had worked.
     */
    public static FailureCause of(FailureKind kind, Integer code, boolean afterTokens, long startEpochMicros,
                                  long servedEpochMicros) {
        if (kind == FailureKind.CONNECT_FAILED && startEpochMicros >= servedEpochMicros) return SERVER_UNAVAILABLE;
        return of(kind, code, afterTokens);
    }

    /** The cause of {@code failure}. */
    public static FailureCause of(Failure failure) {
        return of(failure.kind(), failure.code());
    }

    /**
     * When the server first showed it was there (epoch microseconds): the first response headers, first content or
     * success's end of any of the run's {@code records} ({@link ServerGone.Request#answeredAtEpochMicros()}: a stream
     * cut when the server was killed during the first wave, even before its first token, had been answered: the
     * connections refused after it are the server going away, not a wrong URL); {@link #NEVER_SERVED} if none.
     */
    public static long servedSince(List<RequestRecord> records) {
        return ServerGone.servedSince(ServerGone.requests(records));
    }

    /** When a request sent at {@code startEpochMicros} that took {@code e2eNanos} ended. */
    public static long endEpochMicros(long startEpochMicros, long e2eNanos) {
        return startEpochMicros + Math.max(0, e2eNanos) / 1_000;
    }

    /** The cause of each of a run's {@code records}, in order; null for a success ({@link ServerGone#causes}). */
    public static List<FailureCause> of(List<RequestRecord> records) {
        return of(records, null);
    }

    /** As {@link #of(List)}, with a sweep's earlier levels' answer ({@link ServerGone.Earlier}; null for none). */
    public static List<FailureCause> of(List<RequestRecord> records, ServerGone.Earlier earlier) {
        return ServerGone.causes(ServerGone.requests(records), earlier);
    }

    /** A run's failures by cause ({@link #of(List)}); causes without a failure are left out. */
    public static Map<FailureCause, Integer> count(List<RequestRecord> records) {
        Map<FailureCause, Integer> out = new EnumMap<>(FailureCause.class);
        for (FailureCause cause : of(records)) {
            if (cause != null) out.merge(cause, 1, Integer::sum);
        }
        return out;
    }
}
