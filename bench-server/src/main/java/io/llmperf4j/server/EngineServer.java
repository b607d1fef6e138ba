package io.llmperf4j.server;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * The simulator's OpenAI-compatible front in front of a real {@link GenerationEngine}: the same routing, request
 * parsing, errors, SSE encoding, usage, keep-alive and pipelining as {@link SimulatedServer}, with the text and the
 * token counts coming from the engine.
 *
 * <h2>Endpoints</h2>
 * {@code POST /v1/chat/completions}, {@code POST /v1/completions} and {@code POST /v1/messages} (Anthropic
 * Messages), streaming or not, in the formats {@link SimulatedServer} documents; {@code GET /v1/models};
 * {@code GET /health}. {@code /v1/embeddings} and anything else is a 404. Requests are validated as the simulator
 * validates them (a 400 names the field); the engine may refuse what it cannot serve (a 400 for a prompt beyond its
 * context, say). There is no fault injection, no sequence limit (the engine queues), and no simulated timing.
 *
 * <h2>Settings</h2>
 * Of the {@link SimulatorConfig}, the front uses host, port, modelIds, acceptAnyModel, apiKey, defaultMaxTokens,
 * maxRequestBodyBytes and ioThreads; the simulation settings are ignored.
 *
 * <h2>Lifecycle</h2>
 * {@link #start} binds and returns once the port is open; I/O threads are daemons. The engine stays the caller's to
 * close, after this server.
 */
public final class EngineServer implements AutoCloseable {

    private final BoundServer bound;

    private EngineServer(BoundServer bound) {
        this.bound = bound;
    }

    /**
     * Serves {@code engine} as the model {@code modelId} on {@code host:port} (port 0 picks a free one), with one I/O
     * thread, any requested model name accepted (a request without one is served as {@code modelId}), no API key.
     *
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static EngineServer start(GenerationEngine engine, String modelId, String host, int port) {
        return start(engine, SimulatorConfig.builder()
                .host(host)
                .port(port)
                .modelIds(List.of(modelId))
                .acceptAnyModel(true)
                .ioThreads(1) // an engine produces tokens far slower than one event loop sends them
                .build());
    }

    /**
     * Serves {@code engine} with the front settings of {@code front} (see the class comment).
     *
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static EngineServer start(GenerationEngine engine, SimulatorConfig front) {
        Objects.requireNonNull(engine, "engine");
        ServerContext context = new ServerContext(front, null, engine);
        return new EngineServer(BoundServer.bind(context, Transport.best(), "llmperf4j-engine-io"));
    }

    /** The bound port (the chosen one when port 0 was asked for). */
    public int port() {
        return bound.port();
    }

    /** The OpenAI base URL, e.g. {@code http://127.0.0.1:8000/v1}; a wildcard bind address maps to 127.0.0.1. */
    public String baseUrl() {
        return bound.baseUrl();
    }

    /** Blocks until the server has stopped. */
    public void awaitClose() throws InterruptedException {
        bound.awaitClose();
    }

    /**
     * Stops accepting and closes every connection (generations in flight see {@link GenerationSink#cancelled()});
     * waits at most a few seconds. Idempotent.
     */
    @Override
    public void close() {
        bound.close();
    }

    @Override
    public String toString() {
        return "EngineServer[" + baseUrl() + ", " + bound.transport().displayName + "]";
    }
}
