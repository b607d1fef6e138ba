package io.llmperf4j.engine.client;

import io.llmperf4j.model.RequestSpec;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * Sends requests to an LLM serving endpoint. Load models depend on this interface only.
 * Implementations are thread-safe; {@link #send} never blocks on the network.
 */
public interface LlmClient extends AutoCloseable {

    /**
     * Starts one request. The start time of the request's metrics is taken inside this call, before a connection is
     * acquired, so TTFT includes connection set-up and pool queueing, as llmperf's does.
     *
     * @throws IllegalStateException when the client is closed
     */
    RequestHandle send(RequestSpec spec);

    /**
     * As {@link #send(RequestSpec)}, with {@code whenEnded} set as the request's {@link RequestHandle#whenEnded} action
     * before it starts, so it runs on the thread that ends the request however soon that is.
     */
    default RequestHandle send(RequestSpec spec, Runnable whenEnded) {
        RequestHandle handle = send(spec);
        handle.whenEnded(whenEnded);
        return handle;
    }

    /**
     * Readies {@code spec} to be sent later ({@link PreparedRequest#send()}), with {@code whenEnded} (may be null) as in
     * {@link #send(RequestSpec, Runnable)}: what a request needs before its clock may start (its body, its bytes) is
     * done now. By default nothing is: the request is built when sent.
     *
     * @throws IllegalStateException when the client is closed
     */
    default PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
        return PreparedRequest.builtWhenSent(this, spec, whenEnded);
    }

    /**
     * Opens connections before a run's clock starts, so that at least {@code connections} (at most the client's
     * limit) are open, and waits until each is ready or has failed. Connections already open count; a client in a
     * mode that does not keep connections ({@link ConnectionMode#ON_DEMAND}, {@link ConnectionMode#PER_REQUEST}) or
     * without connections of its own opens none. Never throws for a connect that fails: the requests will fail or
     * connect themselves, and say so in their records.
     *
     * @return the connect times (TCP and TLS, nanoseconds) of the connections this call opened, in the order they
     *         became ready; empty when it opened none
     */
    default long[] preconnect(int connections) {
        return new long[0];
    }

    /**
     * The I/O event loops that read the responses, for watching the client's own overhead
     * ({@code ClientOverheadMonitor}); null when the client has none to show (a test double, a wrapper).
     */
    default EventExecutorGroup ioEventLoops() {
        return null;
    }

    /** Cancels what is in flight (each completes as CANCELLED), closes connections and stops threads. */
    @Override
    void close();
}
