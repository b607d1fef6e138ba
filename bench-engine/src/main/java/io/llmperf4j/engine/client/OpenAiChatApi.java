package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.ChatCompletionChunkParser;
import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.model.RequestSpec;

import java.net.URI;
import java.util.Map;
import java.util.Objects;

/**
 * {@code --llm-api openai}: {@code POST <base>/chat/completions} with {@link ChatRequestBody}, {@code Authorization:
 * Bearer}. Streaming (the default) reads {@code choices[0].delta.content}; not streaming sends {@code "stream":
 * false} and reads {@code choices[0].message.content} of the one response. {@link #withImageDetail} adds OpenAI's
 * {@code detail} to every image part.
 */
public final class OpenAiChatApi implements LlmApi {

    private final boolean stream;
    private final ChunkParser parser;
    /** {@code image_url.detail} of every image part (low, high, auto), or null for none. */
    private final String imageDetail;

    /** @param stream false for {@code --no-stream} */
    public OpenAiChatApi(boolean stream) {
        this(stream, stream ? new ChatCompletionChunkParser() : ChatCompletionChunkParser.chatResponse());
    }

    /** With another chunk interpretation (tests). */
    OpenAiChatApi(boolean stream, ChunkParser parser) {
        this(stream, parser, null);
    }

    private OpenAiChatApi(boolean stream, ChunkParser parser, String imageDetail) {
        this.stream = stream;
        this.parser = Objects.requireNonNull(parser, "parser");
        this.imageDetail = imageDetail;
    }

    /** This API whose image parts carry {@code "detail": detail} (--image-detail); null: none, as before. */
    @Override
    public LlmApi withImageDetail(String detail) {
        return detail == null ? this : new OpenAiChatApi(stream, parser, detail);
    }

    @Override
    public String name() {
        return "openai";
    }

    @Override
    public URI endpoint(String base) {
        return EndpointUrls.chatCompletions(base);
    }

    @Override
    public Map<String, String> headers(Secret apiKey) {
        return bearer(apiKey);
    }

    @Override
    public byte[] body(ClientConfig config, RequestSpec spec) {
        return ChatRequestBody.toJson(ChatRequestBody.build(config.model(), spec, stream, config.includeUsage(),
                config.additionalSamplingParams(), imageDetail));
    }

    @Override
    public boolean streaming() {
        return stream;
    }

    @Override
    public ChunkParser parser() {
        return parser;
    }

    /** {@code Authorization: Bearer <key>}, or nothing for an empty key. */
    static Map<String, String> bearer(Secret apiKey) {
        return apiKey.isEmpty() ? Map.of() : Map.of("Authorization", "Bearer " + apiKey.reveal());
    }
}
