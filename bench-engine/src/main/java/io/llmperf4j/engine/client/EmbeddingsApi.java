package io.llmperf4j.engine.client;

import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.engine.protocol.EmbeddingsResponseParser;
import io.llmperf4j.model.RequestSpec;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * {@code --llm-api embeddings}: {@code POST <base>/embeddings}, not streaming, {@code Authorization: Bearer}. Body
 * {@code model}, {@code input} (a list of strings), then the additional parameters. The record has the E2E latency,
 * {@code usagePromptTokens} = {@code usage.prompt_tokens}, and no TTFT or content.
 */
public final class EmbeddingsApi implements LlmApi {

    private static final ChunkParser PARSER = new EmbeddingsResponseParser();

    private final Function<RequestSpec, List<String>> inputs;

    /** One input per request: the spec's prompt. */
    public EmbeddingsApi() {
        this(spec -> List.of(spec.prompt()));
    }

    /** @param inputs the inputs of a request (a batch), from its spec (typically by {@link RequestSpec#index()}) */
    public EmbeddingsApi(Function<RequestSpec, List<String>> inputs) {
        this.inputs = Objects.requireNonNull(inputs, "inputs");
    }

    @Override
    public String name() {
        return "embeddings";
    }

    @Override
    public URI endpoint(String base) {
        return EndpointUrls.embeddings(base);
    }

    @Override
    public Map<String, String> headers(Secret apiKey) {
        return OpenAiChatApi.bearer(apiKey);
    }

    /** The body as an ordered map. */
    public static Map<String, Object> build(String model, List<String> inputs, Map<String, ?> params) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("input", List.copyOf(inputs));
        if (params != null) body.putAll(params);
        return body;
    }

    @Override
    public byte[] body(ClientConfig config, RequestSpec spec) {
        return ChatRequestBody.toJson(build(config.model(), inputs.apply(spec), config.additionalSamplingParams()));
    }

    @Override
    public boolean streaming() {
        return false;
    }

    @Override
    public ChunkParser parser() {
        return PARSER;
    }
}
