package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.engine.sse.SseEvent;
import io.llmperf4j.model.RequestSpec;

import java.net.URI;
import java.util.Map;

/**
 * One serving API behind the shared transport ({@link NettyLlmClient}): everything that differs between
 * APIs, and nothing else. Implementations are immutable and thread-safe: {@link OpenAiChatApi},
 * {@link OpenAiCompletionsApi}, {@link AnthropicMessagesApi}, {@link EmbeddingsApi}.
 *
 * <p>Metrics are the same for every API (see {@code RecordAssembler}): TTFT to the first event with non-empty
 * content, content event offsets, usage, finish reason, server response id. A non-streaming API
 * ({@link #streaming()} false) has no first token: its single body is parsed whole at its end, so TTFT = E2E when
 * it carries content, and no TTFT when it carries none (embeddings).
 */
public interface LlmApi {

    /** The {@code --llm-api} name, e.g. {@code openai}. */
    String name();

    /**
     * The URL rule: the full endpoint for an API base such as {@code http://host:8000/v1}.
     *
     * @throws IllegalArgumentException when the base is not a usable http(s) URL (see {@link EndpointUrls})
     */
    URI endpoint(String base);

    /** Authentication and API-specific headers for this key (none for auth when the key is empty). */
    Map<String, String> headers(Secret apiKey);

    /** The JSON body of one request (model and additional parameters from {@code config}). */
    byte[] body(ClientConfig config, RequestSpec spec);

    /**
     * The {@code max_tokens} the body of {@code spec} carries, which its record keeps: a whole number in the additional
     * parameters wins (they are merged after the drawn one, as llmperf's dict.update), else the spec's own
     * ({@link RequestSpec#NO_MAX_TOKENS} when the body has none).
     */
    default int maxTokensSent(ClientConfig config, RequestSpec spec) {
        Integer param = config.maxTokensParam();
        return param != null ? param : spec.maxTokens();
    }

    /**
     * This API sending OpenAI's {@code image_url.detail} (low, high, auto) on every image part; null: as it is.
     *
     * @throws IllegalArgumentException when the API has no such field (only OpenAI's chat completions has)
     */
    default LlmApi withImageDetail(String detail) {
        if (detail == null) return this;
        throw new IllegalArgumentException("--image-detail is a field of OpenAI's image_url part: --llm-api "
                + name() + " has none (use --llm-api openai)");
    }

    /** True: a 200 is an SSE stream; false: one JSON body parsed whole by {@link #parser()}. */
    boolean streaming();

    /** Interprets each SSE event (streaming) or the whole body, and any error object in a 200 JSON body. */
    ChunkParser parser();

    /**
     * The event that ends a complete stream, OpenAI's {@code data: [DONE]}. A clean end without it is a success after
     * a finish reason (tagged, warned), else MISSING_DONE (CONNECTION_CLOSED when the body ends with the connection).
     * The engine calls this with the event's data lent: bytes {@code [from, to)} of {@code data}, read during the call
     * only (an API whose end event is named by its {@code event:} line needs only the type).
     */
    default boolean isEndOfStream(String eventType, byte[] data, int from, int to) {
        return SseEvent.isDoneMarker(data, from, to);
    }

    /** {@link #isEndOfStream(String, byte[], int, int)} for a whole event. */
    default boolean isEndOfStream(SseEvent event) {
        return isEndOfStream(event.type(), event.data(), 0, event.data().length);
    }

    /** How {@link #isEndOfStream} is named in messages. */
    default String endOfStreamName() {
        return "data: [DONE]";
    }
}
