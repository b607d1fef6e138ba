package io.llmperf4j.model;

/**
 * Where one request's time went before its content, like curl's {@code -w} timings or a browser's Resource Timing.
 * Milestones are nanosecond offsets from the request's start stamp (the same origin as
 * {@link RequestRecord#ttftNanos()}), -1 where the moment never happened or was not measured. The first and last
 * content are {@link RequestRecord#ttftNanos()} and {@link RequestRecord#lastContentNanos()}; the connect itself
 * is {@link RequestRecord#connectNanos()} (a duration, -1 when the request used a connection it did not open).
 *
 * @param connectionReadyNanos  start → the request had a writable connection (a pooled one, or a new one after
 *                              connect and TLS); the wait for a connection is this minus the connect, if any
 * @param tlsNanos              duration of the TLS handshake inside the connect, -1 for plain TCP or a reused
 *                              connection
 * @param requestWrittenNanos   start → the request's last byte was handed to the socket (the write completed)
 * @param responseHeadersNanos  start → the response's status line and headers arrived
 */
public record RequestPhases(long connectionReadyNanos, long tlsNanos, long requestWrittenNanos,
                            long responseHeadersNanos) {

    /** Nothing measured (records read back from older files, fake clients). */
    public static final RequestPhases UNKNOWN = new RequestPhases(-1, -1, -1, -1);

    public boolean known() {
        return requestWrittenNanos >= 0 || connectionReadyNanos >= 0 || responseHeadersNanos >= 0;
    }
}
