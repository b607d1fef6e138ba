package io.llmperf4j.server;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An embedded OpenAI-compatible server that simulates an LLM with exact, configurable timing, so a benchmark
 * can run without a GPU and tests can use real sockets.
 *
 * <h2>Endpoints</h2>
 * {@code POST /v1/chat/completions} and {@code POST /v1/completions}, streaming ({@code "stream": true}, SSE)
 * or not; {@code POST /v1/messages} (Anthropic Messages, below); {@code POST /v1/embeddings} (below);
 * {@code GET /v1/models}; {@code GET /health} (200, never authenticated). Anything else is a 404 with
 * an OpenAI-style error body {@code {"error":{"message":..,"type":..,"param":..,"code":<http status>}}}; a body
 * that is not JSON, or lacks {@code messages} / {@code prompt}, is a 400; a missing or wrong
 * {@code Authorization: Bearer} (when an API key is configured) is a 401 on every {@code /v1/} path but
 * {@code /v1/messages}; an unknown model (when {@code acceptAnyModel} is false) is a 404 "The model `x` does not
 * exist.". A request without {@code model} is served as the first configured model id.
 *
 * <h2>Stream format (as vLLM)</h2>
 * Every event is {@code data: {json}\n\n} with the same {@code id} ("chatcmpl-N" or "cmpl-N", N a per-server
 * counter from 1), {@code object} ("chat.completion.chunk" or "text_completion"), {@code created} and
 * {@code model} (the requested name). Chat starts with {@code delta: {"role":"assistant","content":""}}; then
 * one event per content chunk ({@code delta.content} for chat, {@code text} for completions) carrying
 * {@code tokensPerChunk} tokens (the last may carry fewer); then an event with an empty delta (empty text)
 * and {@code "finish_reason":"length"} ({@code "stop"} after a simulated EOS); then, only when
 * {@code stream_options.include_usage} is true, an event with {@code "choices":[]} and {@code usage}; then
 * {@code data: [DONE]}. A non-streaming response is one {@code chat.completion} / {@code text_completion} object
 * with the whole text and {@code usage}.
 *
 * <h2>Text and token contract</h2>
 * A response generates {@code max_completion_tokens}, else {@code max_tokens}, else {@code defaultMaxTokens}
 * tokens, at most 1,000,000 (more is a 400), unless a configured {@link EarlyStop} ends it sooner with
 * {@code finish_reason} "stop" (vLLM's {@code ignore_eos} and {@code min_tokens} are honoured); otherwise
 * {@code finish_reason} is "length". {@code usage.completion_tokens} is the number of tokens sent. One token is
 * one word from a fixed list of 256 common English words, each a single Llama-2 SentencePiece token: the first
 * token has no leading space ("the"), every later one has one (" of"), and no two words merge. So the generated
 * text of n tokens encodes with the Llama-2 tokenizer to exactly n ids, and n + 1 with BOS, which is what
 * llmperf's re-count yields. The word sequence is a pure function of the prompt text (message contents joined
 * by "\n" for chat, the prompt for completions): the same prompt always gets the same text, whatever the request
 * order, and a shorter completion is a prefix of a longer one. {@code usage.prompt_tokens} is the configured
 * {@code promptTokenCounter}'s count of that prompt text (no chat template), or, without one,
 * 1 + ceil(chars / 4); a completions prompt sent as token ids counts its ids. Images (chat {@code image_url} parts,
 * Anthropic {@code image} blocks) add their tokens as vLLM counts Qwen2-VL's: one per 28x28-pixel block after
 * rounding, plus 2 per image ({@code ImageTokens}; an http(s) image URL is not fetched and counts as the smallest).
 *
 * <h2>Reasoning</h2>
 * With {@code reasoningTokens} R > 0, a chat response's first R tokens are reasoning, streamed as
 * {@code delta.reasoning_content} (vLLM style; a chunk that spans the boundary carries both fields), and the
 * non-streaming message has {@code reasoning_content}. Reasoning and content each follow the text contract on
 * their own (each starts without a leading space; the content is the reasoning-free text of the prompt). They
 * share the token budget and the timing contract: the first content token is token R of the response, and
 * usage adds {@code completion_tokens_details.reasoning_tokens}. Text completions and {@code /v1/messages} have
 * no reasoning.
 *
 * <h2>Anthropic Messages ({@code POST /v1/messages})</h2>
 * {@code max_tokens} is required (400 otherwise); {@code system} (string or text blocks) and the message contents
 * (strings or text blocks) joined by "\n" are the prompt text, so a conversation generates the same text as its
 * chat-completions form. With an API key configured, {@code x-api-key} must match (a Bearer token is accepted
 * too); {@code anthropic-version} is accepted and ignored. Errors are {@code {"type":"error","error":{"type":..,
 * "message":..}}}. A stream is {@code event: X\ndata: {json}\n\n} events: {@code message_start} (usage.input_tokens),
 * {@code content_block_start}, {@code ping} (all three with the first content chunk), one
 * {@code content_block_delta} ({@code {"type":"text_delta","text":..}}) per content chunk, then
 * {@code content_block_stop}, {@code message_delta} ({@code stop_reason} "max_tokens" or "end_turn",
 * {@code usage.output_tokens}) and {@code message_stop} with the last chunk. Ids are "msg_N". Same timing and
 * token contracts as the OpenAI endpoints.
 *
 * <h2>Embeddings ({@code POST /v1/embeddings})</h2>
 * OpenAI format: {@code input} a string, a list of strings, a list of token ids or a list of token id lists (at
 * most {@link EmbeddingsConfig#maxBatchSize()} inputs, 400 beyond); deterministic unit-norm vectors of
 * {@link EmbeddingsConfig#dimensions()} floats (a request's {@code dimensions} may ask for fewer;
 * {@code encoding_format} "base64" sends little-endian float32); {@code usage.prompt_tokens} and
 * {@code total_tokens} count texts as prompts are counted and id lists by their length. The response is sent by
 * an event-loop timer {@code baseLatency + perInputTokenLatency * prompt_tokens} after the request arrived.
 * Embeddings take no sequence slot. The {@link FaultPlan} picks their faults among the kinds that change an
 * embeddings response (not {@code missing_done} nor {@code oversized_event}), and the {@value FaultKind#HEADER}
 * header forces one as for a non-streaming request: {@code http_*} and {@code reset} on
 * arrival, {@code error_event} an HTTP 200 with an error object, {@code malformed_event} an HTTP 200 with the first
 * half of the body, {@code drop_mid_stream} a close without a byte, {@code stall} the response a stall later,
 * {@code oversized_event} nothing (there is no text to pad).
 *
 * <h2>Fault injection</h2>
 * A {@link FaultPlan} (default none) picks a {@link FaultKind} per generation request, seeded and deterministic
 * (by arrival order or by a hash of the request); a {@value FaultKind#HEADER} request header forces a kind on one
 * request (values: none, http_400, http_401, http_403, http_404, http_429, http_500, http_503, error_event, reset,
 * drop_mid_stream, malformed_event, missing_done, stall, oversized_event; an unknown value is a 400).
 * {@link FaultKind} documents each kind's exact wire behaviour; {@link #faultCounts()} counts the decisions.
 *
 * <h2>Timing contract</h2>
 * At most {@code maxConcurrentSequences} requests generate at once; later ones wait in a FIFO queue. With
 * {@code t0} the request's arrival (the moment its HTTP request was read) when a slot was free for it, else the
 * moment it got its slot, content chunk k (0-based)
 * is due at {@code t0 + timeToFirstToken + prefillPerPromptToken * promptTokens
 * + prefillPerImageToken * imageTokens + k * tokensPerChunk * interTokenDelay} (promptTokens includes the
 * imageTokens) (a {@link FaultKind#STALL} adds its stall from the fault chunk on).
 * So the TTFT a client measures from sending is queue time + TTFT + prefill (+ network), and the last chunk of n
 * tokens comes {@code (ceil(n / tokensPerChunk) - 1) * tokensPerChunk * interTokenDelay} after the first. The
 * chat role event, the HTTP headers and the first content chunk go out together, so every client definition of
 * TTFT agrees. The finish, usage and [DONE] events go out with the last content chunk. A non-streaming response
 * is sent whole when its last chunk is due.
 * Chunks are scheduled on the connection's event loop against these absolute due times: a late wake-up
 * never shifts later chunks, no chunk is sent early, and chunks due together are written in one batch with one
 * flush. Slots are freed when a response ends or its connection closes (the timers stop at once).
 * Measured on a 2-vCPU VM, an idle epoll event loop wakes about 0.1 ms after a due time and NIO up to 1 ms
 * (its selector waits in whole milliseconds); under load, {@link RequestTiming#maxSendLagNanos()} tells per
 * request how far the server itself fell behind its schedule. With every event due at once, one event loop
 * pushes about a million chat SSE events per second (see {@code SseThroughputBenchmark}, profile
 * {@code benchmarks}).
 * With a configured {@code promptTokenCounter}, counting runs on a separate thread before the request queues
 * for a slot. Its time (about 2 ms for a 1,000-token prompt with Llama-2) is part of the TTFT, as a real server's
 * tokenization is, not added to it: the clock runs from arrival, so only counting longer than the TTFT shows.
 *
 * <h2>Lifecycle</h2>
 * {@link #start} binds and returns once the port is open. I/O threads are daemons: a {@code serve} command
 * should block in {@link #awaitClose()} and call {@link #close()} from its shutdown hook.
 *
 * <p>The same front (routing, parsing, errors, encoders, keep-alive) serves a real engine: {@link EngineServer}.
 */
public final class SimulatedServer implements AutoCloseable {

    private final SimulatorConfig config;
    private final ServerContext context;
    private final BoundServer bound;

    private SimulatedServer(SimulatorConfig config, ServerContext context, BoundServer bound) {
        this.config = config;
        this.context = context;
        this.bound = bound;
    }

    /**
     * Binds {@code config.host():config.port()} and starts serving.
     *
     * @throws UncheckedIOException when the address cannot be bound (for example, the port is in use)
     */
    public static SimulatedServer start(SimulatorConfig config) {
        return start(config, Transport.best());
    }

    static SimulatedServer start(SimulatorConfig config, Transport transport) {
        ExecutorService countExecutor = config.promptTokenCounter() == null ? null
                : Executors.newSingleThreadExecutor(new DefaultThreadFactory("llmperf4j-sim-count", true));
        ServerContext context = new ServerContext(config, countExecutor);
        return new SimulatedServer(config, context, BoundServer.bind(context, transport, "llmperf4j-sim"));
    }

    /** The bound port (the chosen one when the config asked for port 0). */
    public int port() {
        return bound.port();
    }

    /** The OpenAI base URL, e.g. {@code http://127.0.0.1:8000/v1}; a wildcard bind address maps to 127.0.0.1. */
    public String baseUrl() {
        return bound.baseUrl();
    }

    public SimulatorConfig config() {
        return config;
    }

    /** "epoll" or "nio", for the start-up line of a serve command. */
    public String transportName() {
        return bound.transport().displayName;
    }

    /** Requests generating right now (holding a sequence slot). */
    public int activeSequences() {
        return config.maxConcurrentSequences() - context.slots.free();
    }

    /** Requests waiting for a sequence slot. */
    public int queuedRequests() {
        return context.slots.queued();
    }

    /**
     * The fault decisions so far, by kind (NONE = clean): one per generation request that passed validation, so
     * {@code faultCounts().total()} equals the valid generation requests a client sent. See {@link FaultCounts}.
     */
    public FaultCounts faultCounts() {
        return context.faults.snapshot();
    }

    /** Completes once the server has stopped, whoever closed it. */
    public CompletableFuture<Void> closeFuture() {
        return bound.closeFuture();
    }

    /** Blocks until the server has stopped. */
    public void awaitClose() throws InterruptedException {
        bound.awaitClose();
    }

    /**
     * Stops accepting, closes every connection (open streams end abruptly and free their slots) and stops the
     * I/O threads; waits at most a few seconds. Idempotent. Called on an I/O thread, it does not wait.
     */
    @Override
    public void close() {
        bound.close();
    }

    @Override
    public String toString() {
        return "SimulatedServer[" + baseUrl() + ", " + transportName() + "]";
    }
}
