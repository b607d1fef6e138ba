package io.llmperf4j.server;

/**
 * Receives the server's own send timestamps, for calibrating what a client measures against what the
 * server did. Optional: set with {@link SimulatorConfig.Builder#timingListener}.
 */
@FunctionalInterface
public interface RequestTimingListener {
    /**
     * Called exactly once per admitted generation request (one that passed validation and was not rejected by an
     * injected HTTP-status or reset fault), when it completes or is aborted. Runs on the request's I/O thread,
     * so it must be quick and must not block: a slow listener delays the chunks of other streams.
     */
    void onRequestFinished(RequestTiming timing);
}
