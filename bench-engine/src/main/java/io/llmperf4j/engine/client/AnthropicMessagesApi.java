package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.AnthropicEventParser;
import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.engine.sse.SseEvent;
import io.llmperf4j.model.RequestSpec;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --llm-api anthropic}: the Messages API, streaming, at {@code <base>/messages} (base e.g.
 * {@code https://api.anthropic.com/v1}). Headers {@code x-api-key} (when the key is not empty) and
 * {@code anthropic-version: 2023-06-01}; body {@code model}, {@code max_tokens}, {@code messages} (one user message,
 * the prompt), {@code stream: true}, then the additional parameters (dict.update, so they may override any of
 * these). {@code max_tokens} is required by the API: a spec without one sends {@link #DEFAULT_MAX_TOKENS}. Events:
 * {@link AnthropicEventParser}; the stream ends with {@code event: message_stop}.
 */
public final class AnthropicMessagesApi implements LlmApi {

    public static final String VERSION = "2023-06-01";
    /** Sent when the spec has {@link RequestSpec#NO_MAX_TOKENS}: the Messages API requires the field. */
    public static final int DEFAULT_MAX_TOKENS = 4096;

    private static final ChunkParser PARSER = new AnthropicEventParser();

    @Override
    public String name() {
        return "anthropic";
    }

    @Override
    public URI endpoint(String base) {
        return EndpointUrls.messages(base);
    }

    @Override
    public Map<String, String> headers(Secret apiKey) {
        Map<String, String> h = new LinkedHashMap<>();
        if (!apiKey.isEmpty()) h.put("x-api-key", apiKey.reveal());
        h.put("anthropic-version", VERSION);
        return h;
    }

    /** The body as an ordered map (what {@link #body} serialises). */
    public static Map<String, Object> build(String model, String prompt, int maxTokens, Map<String, ?> params) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("max_tokens", maxTokens == RequestSpec.NO_MAX_TOKENS ? DEFAULT_MAX_TOKENS : maxTokens);
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("role", "user");
        message.put("content", prompt);
        body.put("messages", List.of(message));
        body.put("stream", Boolean.TRUE);
        if (params != null) body.putAll(params);
        return body;
    }

    @Override
    public byte[] body(ClientConfig config, RequestSpec spec) {
        return ChatRequestBody.toJson(build(config.model(), spec.prompt(), spec.maxTokens(),
                config.additionalSamplingParams()));
    }

    @Override
    public boolean streaming() {
        return true;
    }

    @Override
    public ChunkParser parser() {
        return PARSER;
    }

    @Override
    public boolean isEndOfStream(SseEvent event) {
        return "message_stop".equals(event.type());
    }

    @Override
    public String endOfStreamName() {
        return "event: message_stop";
    }
}
