package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.AnthropicEventParser;
import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.model.ChatMessage;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --llm-api anthropic}: the Messages API at {@code <base>/messages} (base e.g.
 * {@code https://api.anthropic.com/v1}). Headers {@code x-api-key} (when the key is not empty) and
 * {@code anthropic-version: 2023-06-01}; body {@code model}, {@code max_tokens}, {@code messages} (one user message,
 * the prompt), {@code stream}, then the additional parameters (dict.update, so they may override any of these).
 * {@code max_tokens} is required by the API: a spec without one sends {@link #DEFAULT_MAX_TOKENS}. Streaming (the
 * default) reads the events of {@link AnthropicEventParser}, ending with {@code event: message_stop}; not streaming
 * ({@code --no-stream}) reads the one {@code message} object: its text content blocks, {@code stop_reason} and
 * {@code usage.input_tokens} / {@code output_tokens} ({@link AnthropicEventParser#wholeMessage()}).
 */
public final class AnthropicMessagesApi implements LlmApi {

    public static final String VERSION = "2023-06-01";
    /** Sent when the spec has {@link RequestSpec#NO_MAX_TOKENS}: the Messages API requires the field. */
    public static final int DEFAULT_MAX_TOKENS = 4096;

    private static final ChunkParser EVENTS = new AnthropicEventParser();
    private static final ChunkParser WHOLE_MESSAGE = AnthropicEventParser.wholeMessage();

    private final boolean stream;

    /** Streaming. */
    public AnthropicMessagesApi() {
        this(true);
    }

    /** @param stream false for {@code --no-stream}: {@code "stream": false} and one JSON message */
    public AnthropicMessagesApi(boolean stream) {
        this.stream = stream;
    }

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

    /** The streaming body as an ordered map. */
    public static Map<String, Object> build(String model, String prompt, int maxTokens, Map<String, ?> params) {
        return build(model, prompt, maxTokens, true, params);
    }

    /** The body as an ordered map (what {@link #body} serialises). */
    public static Map<String, Object> build(String model, String prompt, int maxTokens, boolean stream,
                                            Map<String, ?> params) {
        return build(model, new RequestSpec(0, prompt, 0, maxTokens), stream, params);
    }

    /**
     * The body of a request with {@link RequestInputs}: the system prompt as the top-level {@code system} field,
     * the session's earlier messages, then the new user message, as content blocks (one {@code image} block per
     * image, then the text, as Anthropic recommends) when images are attached.
     */
    public static Map<String, Object> build(String model, RequestSpec spec, boolean stream, Map<String, ?> params) {
        RequestInputs inputs = spec.inputs();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("max_tokens", spec.maxTokens() == RequestSpec.NO_MAX_TOKENS ? DEFAULT_MAX_TOKENS : spec.maxTokens());
        if (inputs.systemPrompt() != null) body.put("system", inputs.systemPrompt());
        List<Object> messages = new ArrayList<>(inputs.history().size() + 1);
        for (ChatMessage earlier : inputs.history()) {
            messages.add(message(earlier.role(), earlier.images().isEmpty() ? earlier.content()
                    : blocks(earlier.content(), earlier.images())));
        }
        messages.add(message("user", inputs.hasImages() ? blocks(spec.prompt(), inputs.images()) : spec.prompt()));
        body.put("messages", messages);
        body.put("stream", stream);
        if (params != null) body.putAll(params);
        return body;
    }

    private static List<Object> blocks(String text, List<ImageInput> images) {
        List<Object> blocks = new ArrayList<>(images.size() + 1);
        for (ImageInput image : images) {
            Map<String, Object> source = new LinkedHashMap<>();
            if (image.base64() != null) {
                source.put("type", "base64");
                source.put("media_type", image.mediaType());
                source.put("data", image.base64());
            } else {
                source.put("type", "url");
                source.put("url", image.url());
            }
            blocks.add(Map.of("type", "image", "source", source));
        }
        Map<String, Object> textBlock = new LinkedHashMap<>();
        textBlock.put("type", "text");
        textBlock.put("text", text);
        blocks.add(textBlock);
        return blocks;
    }

    private static Map<String, Object> message(String role, Object content) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("role", role);
        message.put("content", content);
        return message;
    }

    @Override
    public int maxTokensSent(ClientConfig config, RequestSpec spec) {
        Integer param = config.maxTokensParam();
        if (param != null) return param;
        return spec.maxTokens() == RequestSpec.NO_MAX_TOKENS ? DEFAULT_MAX_TOKENS : spec.maxTokens();
    }

    @Override
    public byte[] body(ClientConfig config, RequestSpec spec) {
        return ChatRequestBody.toJson(build(config.model(), spec, stream, config.additionalSamplingParams()));
    }

    @Override
    public boolean streaming() {
        return stream;
    }

    @Override
    public ChunkParser parser() {
        return stream ? EVENTS : WHOLE_MESSAGE;
    }

    @Override
    public boolean isEndOfStream(String eventType, byte[] data, int from, int to) {
        return "message_stop".equals(eventType);
    }

    @Override
    public String endOfStreamName() {
        return "event: message_stop";
    }
}
