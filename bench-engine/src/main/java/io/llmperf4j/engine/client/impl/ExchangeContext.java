package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.protocol.ChunkParser;
import io.netty.util.concurrent.EventExecutorGroup;

import java.net.URI;
import java.util.concurrent.Executor;

/**
 * What every exchange of one client shares.
 *
 * @param pool                where connections come from and go back to
 * @param workers             the pool that parses events and builds records (never an I/O thread)
 * @param timers              the event loops, for the request timeout (armed before there is a channel)
 * @param api                 the API: streaming or not, its end-of-stream event, its chunk interpretation
 * @param redactor            scrubs credentials from failure messages
 * @param idleTimeoutNanos    no bytes for this long fails the request as IDLE_TIMEOUT
 * @param requestTimeoutNanos a whole request longer than this fails as REQUEST_TIMEOUT; 0 for none
 * @param maxEventBytes       largest SSE event data accepted
 * @param hostAndPort         the endpoint for messages
 * @param endpoint            the request's URL: a relative redirect's Location is read against it
 * @param endOfBodyGraceNanos how long a connection drains the rest of a body after its stream's end event before it
 *                            is closed rather than pooled ({@link Exchange#END_OF_BODY_GRACE_NANOS}; tests longer)
 */
public record ExchangeContext(
        ConnectionSource pool,
        Executor workers,
        EventExecutorGroup timers,
        LlmApi api,
        Redactor redactor,
        long idleTimeoutNanos,
        long requestTimeoutNanos,
        int maxEventBytes,
        String hostAndPort,
        URI endpoint,
        long endOfBodyGraceNanos) {

    /** With the product's {@link Exchange#END_OF_BODY_GRACE_NANOS}. */
    public ExchangeContext(ConnectionSource pool, Executor workers, EventExecutorGroup timers, LlmApi api,
                           Redactor redactor, long idleTimeoutNanos, long requestTimeoutNanos, int maxEventBytes,
                           String hostAndPort, URI endpoint) {
        this(pool, workers, timers, api, redactor, idleTimeoutNanos, requestTimeoutNanos, maxEventBytes, hostAndPort,
                endpoint, Exchange.END_OF_BODY_GRACE_NANOS);
    }

    /** The API's chunk interpretation. */
    public ChunkParser parser() {
        return api.parser();
    }
}
