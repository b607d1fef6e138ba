package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.ChatCompletionChunkParser;
import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.model.RequestSpec;

import java.net.URI;
import java.util.Map;

/**
 * {@code --llm-api openai-completions}: {@code POST <base>/completions} (a base already ending in
 * {@code /completions} is used as is) with body {@code model}, {@code prompt} (a string), {@code stream},
 * {@code stream_options} when streaming with usage, {@code max_tokens}, then the additional parameters; content =
 * {@code choices[0].text}, streamed or whole.
 */
public final class OpenAiCompletionsApi implements LlmApi {

    private static final ChunkParser PARSER = ChatCompletionChunkParser.textCompletion();

    private final boolean stream;

    /** @param stream false for {@code --no-stream} */
    public OpenAiCompletionsApi(boolean stream) {
        this.stream = stream;
    }

    @Override
    public String name() {
        return "openai-completions";
    }

    @Override
    public URI endpoint(String base) {
        return EndpointUrls.completions(base);
    }

    @Override
    public Map<String, String> headers(Secret apiKey) {
        return OpenAiChatApi.bearer(apiKey);
    }

    @Override
    public byte[] body(ClientConfig config, RequestSpec spec) {
        return ChatRequestBody.toJson(ChatRequestBody.buildCompletion(config.model(), spec, stream,
                config.includeUsage(), config.additionalSamplingParams()));
    }

    @Override
    public boolean streaming() {
        return stream;
    }

    @Override
    public ChunkParser parser() {
        return PARSER;
    }
}
