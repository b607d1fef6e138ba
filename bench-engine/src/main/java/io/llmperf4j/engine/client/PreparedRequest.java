package io.llmperf4j.engine.client;

import io.llmperf4j.model.RequestSpec;

/**
 * A request made ready to go ({@link LlmClient#prepare}) whose clock has not started: sent once, or discarded.
 * A load model that sends at scheduled instants (the open loop) prepares each request before its instant, so the
 * instant holds the send alone and the time to build a request is neither send lag nor TTFT.
 */
public interface PreparedRequest {

    /**
     * Starts the request: its clock starts inside this call, as in {@link LlmClient#send(RequestSpec)}. At most once.
     *
     * @throws IllegalStateException when the client is closed, or this was sent or discarded already
     */
    RequestHandle send();

    /** Gives back what the request holds, for one that will never be sent (the run stopped before its time). */
    void discard();

    /** A request built only when sent: for clients with nothing to do ahead (test doubles, wrappers). */
    static PreparedRequest builtWhenSent(LlmClient client, RequestSpec spec, Runnable whenEnded) {
        return new PreparedRequest() {
            private boolean used;

            @Override
            public RequestHandle send() {
                if (used) throw new IllegalStateException("this request was sent or discarded already");
                used = true;
                return whenEnded == null ? client.send(spec) : client.send(spec, whenEnded);
            }

            @Override
            public void discard() {
                used = true;
            }
        };
    }
}
