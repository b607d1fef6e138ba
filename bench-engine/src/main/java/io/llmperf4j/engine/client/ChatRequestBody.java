package io.llmperf4j.engine.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.ChatMessage;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;

import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The chat completions request body, with llmperf's key order: {@code model}, {@code messages} (an empty system
 * message, then the prompt as the user message), {@code stream: true}, then {@code stream_options:
 * {"include_usage": true}} when usage is requested, then {@code max_tokens} (left out for
 * {@link RequestSpec#NO_MAX_TOKENS}, as llmperf's correctness test sends none), then the additional sampling
 * parameters merged with Python {@code dict.update} semantics: a key already present keeps its position and takes
 * the new value, a new key is appended. So the additional parameters can override any earlier key.
 */
public final class ChatRequestBody {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ChatRequestBody() {
    }

    /** The body as an ordered map (what {@link #encode} serialises). */
    public static Map<String, Object> build(String model, String prompt, int maxTokens, boolean includeUsage,
                                            Map<String, ?> additionalSamplingParams) {
        return build(model, prompt, maxTokens, true, includeUsage, additionalSamplingParams);
    }

    /**
     * The same with {@code stream} chosen: {@code "stream": false} for a non-streaming request, which then carries
     * no {@code stream_options} (OpenAI rejects them without streaming) whatever {@code includeUsage} says.
     */
    public static Map<String, Object> build(String model, String prompt, int maxTokens, boolean stream,
                                            boolean includeUsage, Map<String, ?> additionalSamplingParams) {
        return build(model, new RequestSpec(0, prompt, 0, maxTokens), stream, includeUsage, additionalSamplingParams);
    }

    /**
     * The chat body of a request with {@link RequestInputs}: the system message carries the inputs' system prompt
     * (empty, as llmperf sends it, when there is none), then the session's earlier messages in order, then the new
     * user message: plain text, or OpenAI content parts (the text, then one {@code image_url} part per image) when
     * images are attached. A {@link RequestInputs#TEXT_ONLY} request gives exactly llmperf's body.
     */
    public static Map<String, Object> build(String model, RequestSpec spec, boolean stream, boolean includeUsage,
                                            Map<String, ?> additionalSamplingParams) {
        return build(model, spec, stream, includeUsage, additionalSamplingParams, null);
    }

    /**
     * The same, every {@code image_url} part carrying {@code "detail": imageDetail} after its {@code url} (OpenAI's
     * low, high or auto: the image's token cost on vision servers); none when {@code imageDetail} is null.
     */
    public static Map<String, Object> build(String model, RequestSpec spec, boolean stream, boolean includeUsage,
                                            Map<String, ?> additionalSamplingParams, String imageDetail) {
        RequestInputs inputs = spec.inputs();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        List<Object> messages = new ArrayList<>(inputs.history().size() + 2);
        messages.add(message("system", inputs.systemPrompt() == null ? "" : inputs.systemPrompt()));
        for (ChatMessage earlier : inputs.history()) {
            messages.add(earlier.images().isEmpty() ? message(earlier.role(), earlier.content())
                    : message(earlier.role(), openAiParts(earlier.content(), earlier.images(), imageDetail)));
        }
        messages.add(inputs.hasImages() ? message("user", openAiParts(spec.prompt(), inputs.images(), imageDetail))
                : message("user", spec.prompt()));
        body.put("messages", messages);
        return finish(body, spec.maxTokens(), stream, includeUsage, additionalSamplingParams);
    }

    /**
     * The {@code /v1/completions} body of a request with {@link RequestInputs}: the system prompt and the earlier
     * messages are joined before the new text, one per paragraph, since the API has no roles. Images are refused:
     * the completions API has no way to carry them.
     */
    public static Map<String, Object> buildCompletion(String model, RequestSpec spec, boolean stream,
                                                      boolean includeUsage, Map<String, ?> additionalSamplingParams) {
        RequestInputs inputs = spec.inputs();
        if (inputs.hasImages()) {
            throw new IllegalArgumentException("the completions API cannot send images: use --llm-api openai "
                    + "(chat completions) or anthropic");
        }
        return buildCompletion(model, flattened(spec.prompt(), inputs), spec.maxTokens(), stream, includeUsage,
                additionalSamplingParams);
    }

    /** The prompt with the system prompt and the earlier turns before it, for APIs without roles. */
    static String flattened(String prompt, RequestInputs inputs) {
        if (inputs.systemPrompt() == null && inputs.history().isEmpty()) {
            return prompt;
        }
        StringBuilder text = new StringBuilder();
        if (inputs.systemPrompt() != null) {
            text.append(inputs.systemPrompt()).append(RequestInputs.SYSTEM_PROMPT_SEPARATOR);
        }
        for (ChatMessage earlier : inputs.history()) text.append(earlier.content()).append("\n\n");
        return text.append(prompt).toString();
    }

    private static List<Object> openAiParts(String text, List<ImageInput> images, String detail) {
        List<Object> parts = new ArrayList<>(images.size() + 1);
        Map<String, Object> textPart = new LinkedHashMap<>();
        textPart.put("type", "text");
        textPart.put("text", text);
        parts.add(textPart);
        for (ImageInput image : images) {
            Map<String, Object> part = new LinkedHashMap<>();
            part.put("type", "image_url");
            Map<String, Object> imageUrl = new LinkedHashMap<>();
            imageUrl.put("url", image.url());
            if (detail != null) imageUrl.put("detail", detail);
            part.put("image_url", imageUrl);
            parts.add(part);
        }
        return parts;
    }

    /**
     * The {@code /v1/completions} body: {@code model}, {@code prompt} (the prompt string), then as for chat:
     * {@code stream}, {@code stream_options} when streaming with usage, {@code max_tokens}, the additional params.
     */
    public static Map<String, Object> buildCompletion(String model, String prompt, int maxTokens, boolean stream,
                                                      boolean includeUsage, Map<String, ?> additionalSamplingParams) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("prompt", prompt);
        return finish(body, maxTokens, stream, includeUsage, additionalSamplingParams);
    }

    private static Map<String, Object> finish(Map<String, Object> body, int maxTokens, boolean stream,
                                              boolean includeUsage, Map<String, ?> additionalSamplingParams) {
        body.put("stream", stream);
        if (stream && includeUsage) {
            body.put("stream_options", Map.of("include_usage", Boolean.TRUE));
        }
        if (maxTokens != RequestSpec.NO_MAX_TOKENS) {
            body.put("max_tokens", maxTokens);
        }
        if (additionalSamplingParams != null) {
            body.putAll(additionalSamplingParams); // LinkedHashMap.put keeps an existing key's position: dict.update
        }
        return body;
    }

    /** The body as JSON bytes (UTF-8, compact). */
    public static byte[] encode(String model, String prompt, int maxTokens, boolean includeUsage,
                                Map<String, ?> additionalSamplingParams) {
        return toJson(build(model, prompt, maxTokens, includeUsage, additionalSamplingParams));
    }

    /** Any body map as compact UTF-8 JSON. */
    public static byte[] toJson(Map<String, Object> body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot serialise the request body: " + e.getOriginalMessage(), e);
        }
    }

    private static Map<String, Object> message(String role, Object content) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", role);
        m.put("content", content);
        return m;
    }
}
