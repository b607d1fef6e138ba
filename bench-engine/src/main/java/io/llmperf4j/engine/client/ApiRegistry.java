package io.llmperf4j.engine.client;

import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every serving API this tool can call, in one list: its {@code --llm-api} name, the environment variables of its
 * base URL and key, the base users usually mean, what it supports, and how its {@link LlmApi} adapter is made.
 * Everything that lists, checks or builds APIs (flag validation, endpoint variables, doctor, the cluster's client)
 * reads this list; adding an API is one entry here plus its adapter class.
 */
public final class ApiRegistry {

    /** Makes an API's adapter. */
    @FunctionalInterface
    public interface AdapterFactory {
        /**
         * @param stream          false for {@code --no-stream} (ignored by an API that never streams)
         * @param embeddingInputs the inputs of each embeddings request, by its spec; null for one input, the prompt
         *                        (ignored by the other APIs)
         */
        LlmApi create(boolean stream, Function<RequestSpec, List<String>> embeddingInputs);
    }

    /**
     * One API.
     *
     * @param name          the {@code --llm-api} name
     * @param baseVariable  the environment variable with the API base URL (e.g. {@code http://host:8000/v1})
     * @param keyVariable   the environment variable with the API key
     * @param defaultBase   the base this API usually has, for examples in messages
     * @param streams       whether responses can stream (SSE); false: one JSON body, no first token, no events
     * @param generates     whether responses carry generated text (false: embeddings)
     * @param distributable whether the workers of a cluster can send it
     * @param streamUsage   whether usage in a stream is asked for with {@code stream_options.include_usage}
     * @param streamShape   what a well-formed stream looks like, for messages (null when it never streams)
     * @param bodyShape     what a well-formed single JSON response looks like, for messages
     * @param factory       makes the adapter
     */
    public record Api(String name, String baseVariable, String keyVariable, String defaultBase, boolean streams,
                      boolean generates, boolean distributable, boolean streamUsage, String streamShape,
                      String bodyShape, AdapterFactory factory) {

        /** The adapter; {@code stream} false sends {@code "stream": false} where the API streams. */
        public LlmApi adapter(boolean stream) {
            return factory.create(stream, null);
        }

        /** The adapter with the inputs of each embeddings request (see {@link AdapterFactory#create}). */
        public LlmApi adapter(boolean stream, Function<RequestSpec, List<String>> embeddingInputs) {
            return factory.create(stream, embeddingInputs);
        }
    }

    public static final String OPENAI_BASE = "OPENAI_API_BASE";
    public static final String OPENAI_KEY = "OPENAI_API_KEY";
    public static final String ANTHROPIC_BASE = "ANTHROPIC_API_BASE";
    public static final String ANTHROPIC_KEY = "ANTHROPIC_API_KEY";
    private static final String LOCAL_V1 = "http://localhost:8000/v1";
    private static final String OPENAI_SSE = "OpenAI SSE: every event must be 'data: {json}' with 'choices'";
    private static final String OPENAI_BODY = "one OpenAI JSON response with 'choices'";

    /** The supported APIs, in the order help texts list them; the first is the default. */
    public static final List<Api> APIS = List.of(
            new Api("openai", OPENAI_BASE, OPENAI_KEY, LOCAL_V1, true, true, true, true, OPENAI_SSE, OPENAI_BODY,
                    (stream, inputs) -> new OpenAiChatApi(stream)),
            new Api("openai-completions", OPENAI_BASE, OPENAI_KEY, LOCAL_V1, true, true, true, true, OPENAI_SSE,
                    OPENAI_BODY, (stream, inputs) -> new OpenAiCompletionsApi(stream)),
            new Api("anthropic", ANTHROPIC_BASE, ANTHROPIC_KEY, "https://api.anthropic.com/v1", true, true, true,
                    false, "Anthropic SSE: typed events ('event: content_block_delta' with 'data: {json}')",
                    "an Anthropic message: one JSON object of type 'message' with a 'content' array",
                    (stream, inputs) -> new AnthropicMessagesApi(stream)),
            new Api("embeddings", OPENAI_BASE, OPENAI_KEY, LOCAL_V1, false, false, false, false, null,
                    "an OpenAI embeddings response: one JSON object with a 'data' array and 'usage'",
                    (stream, inputs) -> inputs == null ? new EmbeddingsApi() : new EmbeddingsApi(inputs)));

    /** llmperf's APIs that this tool does not call (named in messages as "not supported yet"). */
    public static final List<String> LLMPERF_ONLY = List.of("litellm", "sagemaker", "vertexai");
    /** What to use instead of one of {@link #LLMPERF_ONLY}: most providers (and LiteLLM's proxy) speak OpenAI's API. */
    static final String LLMPERF_ONLY_ALTERNATIVE = "; for an OpenAI-compatible provider or proxy (LiteLLM's proxy, "
            + "a SageMaker or Vertex AI endpoint serving OpenAI's API) use --llm-api openai with its base URL in "
            + "OPENAI_API_BASE";

    private ApiRegistry() {
    }

    /** The API of this name, if supported. */
    public static Optional<Api> find(String name) {
        return APIS.stream().filter(a -> a.name().equals(name)).findFirst();
    }

    /**
     * The API of this name.
     *
     * @throws IllegalArgumentException naming the supported APIs when there is none of this name
     */
    public static Api get(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException(
                (LLMPERF_ONLY.contains(name) ? "--llm-api " + name + " is not supported yet"
                        : "unknown --llm-api '" + name + "'") + "; supported: " + String.join(", ", names())
                        + (LLMPERF_ONLY.contains(name) ? LLMPERF_ONLY_ALTERNATIVE : "")));
    }

    /** The supported names, in order. */
    public static List<String> names() {
        return APIS.stream().map(Api::name).toList();
    }

    /** The names of the APIs a cluster's workers can send. */
    public static List<String> distributableNames() {
        return APIS.stream().filter(Api::distributable).map(Api::name).toList();
    }
}
