package io.llmperf4j.distributed;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.RequestSpec;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * A worker's client that tells its {@link RecordStream} of each request as it goes out, so the coordinator knows
 * which requests a worker that dies had sent and which it never did. Everything else is the wrapped client's.
 */
final class SendWatchingClient implements LlmClient {
    private final LlmClient client;
    private final RecordStream stream;

    SendWatchingClient(LlmClient client, RecordStream stream) {
        this.client = client;
        this.stream = stream;
    }

    @Override
    public RequestHandle send(RequestSpec spec) {
        long at = System.nanoTime();
        return told(client.send(spec), spec, at);
    }

    @Override
    public RequestHandle send(RequestSpec spec, Runnable whenEnded) {
        long at = System.nanoTime();
        return told(client.send(spec, whenEnded), spec, at);
    }

    @Override
    public PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
        PreparedRequest prepared = client.prepare(spec, whenEnded);
        return new PreparedRequest() {
            @Override
            public RequestHandle send() {
                long at = System.nanoTime();
                return told(prepared.send(), spec, at);
            }

            @Override
            public void discard() {
                prepared.discard();
            }
        };
    }

    private RequestHandle told(RequestHandle handle, RequestSpec spec, long sentNanos) {
        stream.sent(handle.clientRequestId(), spec, sentNanos);
        return handle;
    }

    @Override
    public long[] preconnect(int connections) {
        return client.preconnect(connections);
    }

    @Override
    public EventExecutorGroup ioEventLoops() {
        return client.ioEventLoops();
    }

    /** The wrapped client is closed by its owner. */
    @Override
    public void close() {
    }
}
