package io.llmperf4j.llama;

import io.llmperf4j.server.EngineServer;
import io.llmperf4j.server.SimulatorConfig;

import java.io.UncheckedIOException;

/**
 * An OpenAI-compatible server in front of a real inference engine ({@link LlamaEngine}: llama.cpp, one decoding
 * thread, a FIFO queue): bench-server's front ({@link EngineServer}), so routing, request parsing, errors, SSE
 * encoding, usage and keep-alive are the simulator's own.
 *
 * <h2>Endpoints</h2>
 * {@code POST /v1/chat/completions} (messages rendered through the model's chat template),
 * {@code POST /v1/completions} (a string prompt) and {@code POST /v1/messages} (Anthropic Messages, rendered as a
 * chat), streaming ({@code "stream": true}, SSE) or not; {@code GET /v1/models} (the one model id);
 * {@code GET /health}. Anything else is a 404; a body that is not JSON, or lacks messages / prompt, is a 400, as is a
 * request whose prompt plus max_tokens exceeds the context. Requests may name any model.
 *
 * <h2>Stream format (as vLLM)</h2>
 * Every event is {@code data: {json}\n\n} with the same id ("chatcmpl-N" / "cmpl-N"), object, created and model.
 * Chat starts with {@code delta: {"role":"assistant","content":""}}; then one event per piece of text llama.cpp
 * hands over (usually one token; a character split over several byte tokens arrives whole, in one event); then an
 * event with an empty delta and {@code "finish_reason":"length"} ({@code "stop"} when a stop string ended it); then, with {@code stream_options.include_usage},
 * an event with {@code "choices":[]} and {@code usage}; then {@code data: [DONE]}. A non-streaming response is one
 * {@code chat.completion} / {@code text_completion} object with the whole text and usage.
 *
 * <h2>Tokens</h2>
 * A response has exactly max_tokens ({@code max_completion_tokens}, else {@code max_tokens}, else
 * {@value SimulatorConfig#DEFAULT_MAX_TOKENS}) completion tokens, EOS being ignored, unless a {@code stop} string
 * ends it first (the text before it is returned, and the count is llama.cpp's tokens through the stop string).
 * {@code usage.prompt_tokens} is llama.cpp's count of the prompt it decodes (the rendered chat template included)
 * plus BOS. Sampling: temperature, top_p and seed are passed to llama.cpp; other parameters are ignored.
 */
public final class LlamaServer implements AutoCloseable {
    private final EngineServer server;

    private LlamaServer(EngineServer server) {
        this.server = server;
    }

    /**
     * Binds {@code host:port} (port 0 picks a free one) and serves {@code engine} under {@code modelId}. The engine
     * stays the caller's to close.
     *
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static LlamaServer start(LlamaEngine engine, String modelId, String host, int port) {
        return new LlamaServer(EngineServer.start(new LlamaGenerationEngine(engine), modelId, host, port));
    }

    public int port() {
        return server.port();
    }

    /** The OpenAI base URL, e.g. {@code http://127.0.0.1:8000/v1}; a wildcard bind address maps to 127.0.0.1. */
    public String baseUrl() {
        return server.baseUrl();
    }

    /** Blocks until the server has stopped. */
    public void awaitClose() throws InterruptedException {
        server.awaitClose();
    }

    /** Stops accepting and closes every connection (generations in flight see their client gone). Idempotent. */
    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return "LlamaServer[" + baseUrl() + "]";
    }
}
