package io.llmperf4j.report.metrics;

/**
 * Where a request's time went, like curl's {@code -w} timings or a browser's Resource Timing (see
 * {@code bench-report/METRICS.md}, "Timing phases"). The first five add up to TTFT for a request whose milestones
 * are all known; the last two split the rest of its E2E latency. Durations, in nanoseconds.
 */
public enum Phase {
    /** Start stamp → a writable connection, minus the connect: the wait for a pooled connection (or a slot). */
    CONNECTION_WAIT("connection_wait", "wait"),
    /** TCP connect and TLS handshake of a request that opened a new connection (0 on a reused one). */
    CONNECT("connect", "connect"),
    /** Connection ready → the request's last byte handed to the socket. */
    REQUEST_WRITE("request_write", "write"),
    /** Request written → the response's status line and headers: the server's time to answer. */
    RESPONSE_HEADERS("response_headers", "server"),
    /** Response headers → the first non-empty content. */
    FIRST_CONTENT("first_content", "first content"),
    /** First → last non-empty content. */
    CONTENT("content", "content"),
    /** Last content → the end of the response ({@code [DONE]} or close). */
    TAIL("tail", "tail"),
    /** The TLS handshake inside a new connection's connect (not a term of the TTFT sum: part of CONNECT). */
    TLS("tls", "TLS");

    private final String keyStem;
    private final String label;

    Phase(String keyStem, String label) {
        this.keyStem = keyStem;
        this.label = label;
    }

    /** The summary key, e.g. {@code connection_wait_ms}. */
    public String jsonKey() {
        return keyStem + "_ms";
    }

    /** A short word for the console, e.g. {@code wait}. */
    public String label() {
        return label;
    }

    /** True for the phases whose sum is TTFT. */
    public boolean partOfTtft() {
        return ordinal() <= FIRST_CONTENT.ordinal();
    }
}
