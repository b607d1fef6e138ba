package io.llmperf4j.engine.client;

/**
 * When a client opens its connections, and whether it keeps them ({@link ClientConfig#connectionMode()}).
 * The CLI flag that sets it is the lead's to name (e.g. {@code --connection-mode preconnect|on-demand|per-request}).
 */
public enum ConnectionMode {
    /**
     * The default. Before the clock of a run starts (and before each sweep level), the load runner asks the client
     * to open as many keep-alive connections as the run will use ({@link LlmClient#preconnect}); their connect times
     * are reported apart ({@code LoadResult.preconnectNanos()}), and the measured requests reuse them, so no TTFT
     * carries a TCP or TLS connect and the server sees no connect storm in the first wave.
     */
    PRECONNECT,
    /**
     * Keep-alive connections opened when a request finds none idle: the first wave of requests pays the connect in
     * its TTFT ({@code RequestRecord.connectNanos()}), later ones reuse the connections.
     */
    ON_DEMAND,
    /**
     * llmperf's behaviour: a new connection for every request, closed after its response, so every TTFT includes a
     * TCP (and TLS) connect, as with Python {@code requests.post} without a session.
     */
    PER_REQUEST
}
