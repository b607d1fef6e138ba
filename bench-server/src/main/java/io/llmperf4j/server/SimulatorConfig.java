package io.llmperf4j.server;

import io.llmperf4j.model.TokenCounter;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Immutable settings of a {@link SimulatedServer}. Start from {@link #defaults()} or {@link #builder()};
 * every value is validated here, and messages name the value and the rule ("tokensPerChunk (0) must be >= 1").
 *
 * <p>Timing values are described on {@link SimulatedServer} (the timing contract).
 *
 * @param host                    address to bind, default {@value #DEFAULT_HOST}
 * @param port                    port to bind, 0 = any free port (default)
 * @param timeToFirstToken        delay from getting a sequence slot to the first content chunk, default 50 ms
 * @param interTokenDelay         delay between two consecutive tokens, default 10 ms
 * @param tokensPerChunk          tokens carried by each content chunk (the last one may carry fewer), default 1
 * @param maxConcurrentSequences  sequences generated at once; later requests wait in a FIFO queue, default 64
 * @param prefillPerPromptToken   extra time to first token per prompt token (added to timeToFirstToken), default 0
 * @param modelIds                served model ids listed by {@code /v1/models}; the first is used when a
 *                                request names no model; default [{@value #DEFAULT_MODEL_ID}]
 * @param acceptAnyModel          serve any requested model name (default true); when false an unknown model
 *                                gets HTTP 404 with an OpenAI-style error
 * @param apiKey                  required bearer token, or null (default) for no authentication; never printed
 * @param promptTokenCounter      counts {@code usage.prompt_tokens}, or null (default) for the heuristic of
 *                                {@link SimulatedServer} (1 + ceil(chars / 4)); runs off the I/O threads
 * @param defaultMaxTokens        completion length when a request sends neither {@code max_tokens} nor
 *                                {@code max_completion_tokens}, default 256
 * @param maxRequestBodyBytes     larger request bodies get HTTP 413, default 16 MiB
 * @param ioThreads               event-loop threads, 0 (default) = one per available processor
 * @param timingListener          told the server's own send timestamps of every admitted request, or null
 *                                (default); called on an I/O thread, so it must be quick and non-blocking
 * @param faultPlan               which generation requests get which injected fault, default
 *                                {@link FaultPlan#none()}; see {@link FaultKind} for each kind's wire behaviour
 * @param earlyStop               simulated EOS before max_tokens, default {@link EarlyStop#none()}
 * @param reasoningTokens         chat completions first stream this many tokens as {@code delta.reasoning_content}
 *                                (vLLM style) before the content; they count in max_tokens and usage; default 0
 * @param embeddings              settings of {@code /v1/embeddings}, default {@link EmbeddingsConfig#defaults()}
 * @param prefillPerImageToken    extra time to first token per image token (the vision encoder's share; image
 *                                tokens also count as prompt tokens for {@code prefillPerPromptToken}), default 0;
 *                                images are counted as vLLM counts Qwen2-VL's (28x28-pixel blocks, see
 *                                {@code ImageTokens})
 * @param prefixCacheBlocks       KV blocks the simulated prefix cache keeps (LRU), 0 = no prefix cache; default
 *                                {@value #DEFAULT_PREFIX_CACHE_BLOCKS}. Cached prompt tokens skip
 *                                {@code prefillPerPromptToken} and are reported as
 *                                {@code usage.prompt_tokens_details.cached_tokens} (omitted when 0, as vLLM does)
 * @param prefixBlockTokens       tokens per KV block of the prefix cache, default {@value #DEFAULT_PREFIX_BLOCK_TOKENS}
 *                                (vLLM's block size)
 * @param sharedPrefixCache       one prefix cache for every model name it serves, as a router or aliases of one
 *                                engine behind several names; default false: a cache per model, as vLLM keys its cache
 *                                by model and LoRA adapter
 */
public record SimulatorConfig(
        String host,
        int port,
        Duration timeToFirstToken,
        Duration interTokenDelay,
        int tokensPerChunk,
        int maxConcurrentSequences,
        Duration prefillPerPromptToken,
        List<String> modelIds,
        boolean acceptAnyModel,
        String apiKey,
        TokenCounter promptTokenCounter,
        int defaultMaxTokens,
        int maxRequestBodyBytes,
        int ioThreads,
        RequestTimingListener timingListener,
        FaultPlan faultPlan,
        EarlyStop earlyStop,
        int reasoningTokens,
        EmbeddingsConfig embeddings,
        Duration prefillPerImageToken,
        int prefixCacheBlocks,
        int prefixBlockTokens,
        boolean sharedPrefixCache) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 0;
    public static final Duration DEFAULT_TIME_TO_FIRST_TOKEN = Duration.ofMillis(50);
    public static final Duration DEFAULT_INTER_TOKEN_DELAY = Duration.ofMillis(10);
    public static final int DEFAULT_TOKENS_PER_CHUNK = 1;
    public static final int DEFAULT_MAX_CONCURRENT_SEQUENCES = 64;
    public static final Duration DEFAULT_PREFILL_PER_PROMPT_TOKEN = Duration.ZERO;
    public static final String DEFAULT_MODEL_ID = "llmperf4j-sim";
    public static final boolean DEFAULT_ACCEPT_ANY_MODEL = true;
    public static final int DEFAULT_MAX_TOKENS = 256;
    public static final int DEFAULT_MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024;
    public static final int DEFAULT_IO_THREADS = 0;
    public static final int DEFAULT_PREFIX_CACHE_BLOCKS = 65_536;
    public static final int DEFAULT_PREFIX_BLOCK_TOKENS = 16;
    /** Upper bound of every delay setting: keeps nanosecond arithmetic far from overflow. */
    public static final Duration MAX_DELAY = Duration.ofHours(24);

    public SimulatorConfig {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) throw new IllegalArgumentException("host must not be blank");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port (" + port + ") must be between 0 and 65535");
        }
        requireDelay("timeToFirstToken", timeToFirstToken);
        requireDelay("interTokenDelay", interTokenDelay);
        requireDelay("prefillPerPromptToken", prefillPerPromptToken);
        requireDelay("prefillPerImageToken", prefillPerImageToken);
        requireAtLeast("tokensPerChunk", tokensPerChunk, 1);
        requireAtLeast("maxConcurrentSequences", maxConcurrentSequences, 1);
        requireAtLeast("defaultMaxTokens", defaultMaxTokens, 1);
        if (defaultMaxTokens > CompletionRequestParser.MAX_TOKENS_LIMIT) {
            throw new IllegalArgumentException("defaultMaxTokens (" + defaultMaxTokens + ") must be <= "
                    + CompletionRequestParser.MAX_TOKENS_LIMIT);
        }
        requireAtLeast("maxRequestBodyBytes", maxRequestBodyBytes, 1024);
        requireAtLeast("ioThreads", ioThreads, 0);
        modelIds = List.copyOf(Objects.requireNonNull(modelIds, "modelIds"));
        if (modelIds.isEmpty()) throw new IllegalArgumentException("modelIds must not be empty");
        for (String id : modelIds) {
            if (id.isBlank()) throw new IllegalArgumentException("modelIds must not contain a blank id");
        }
        if (apiKey != null && apiKey.isBlank()) {
            throw new IllegalArgumentException("apiKey must not be blank (use null for no authentication)");
        }
        Objects.requireNonNull(faultPlan, "faultPlan");
        Objects.requireNonNull(earlyStop, "earlyStop");
        Objects.requireNonNull(embeddings, "embeddings");
        requireAtLeast("reasoningTokens", reasoningTokens, 0);
        requireAtLeast("prefixCacheBlocks", prefixCacheBlocks, 0);
        requireAtLeast("prefixBlockTokens", prefixBlockTokens, 1);
        if (reasoningTokens > CompletionRequestParser.MAX_TOKENS_LIMIT) {
            throw new IllegalArgumentException("reasoningTokens (" + reasoningTokens + ") must be <= "
                    + CompletionRequestParser.MAX_TOKENS_LIMIT);
        }
    }

    /** All defaults: 127.0.0.1, a free port, 50 ms TTFT, 10 ms between tokens, 1 token per chunk, 64 slots. */
    public static SimulatorConfig defaults() {
        return new Builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Like the record's, but the API key is masked: it must never reach a log. */
    @Override
    public String toString() {
        return "SimulatorConfig[host=" + host + ", port=" + port
                + ", timeToFirstToken=" + timeToFirstToken + ", interTokenDelay=" + interTokenDelay
                + ", tokensPerChunk=" + tokensPerChunk + ", maxConcurrentSequences=" + maxConcurrentSequences
                + ", prefillPerPromptToken=" + prefillPerPromptToken + ", modelIds=" + modelIds
                + ", acceptAnyModel=" + acceptAnyModel + ", apiKey=" + (apiKey == null ? "none" : "****")
                + ", promptTokenCounter=" + (promptTokenCounter == null ? "heuristic" : promptTokenCounter)
                + ", defaultMaxTokens=" + defaultMaxTokens + ", maxRequestBodyBytes=" + maxRequestBodyBytes
                + ", ioThreads=" + ioThreads + ", timingListener=" + timingListener + ", faultPlan=" + faultPlan
                + ", earlyStop=" + earlyStop + ", reasoningTokens=" + reasoningTokens + ", embeddings=" + embeddings
                + ", prefillPerImageToken=" + prefillPerImageToken + ", prefixCacheBlocks=" + prefixCacheBlocks
                + ", prefixBlockTokens=" + prefixBlockTokens + ", sharedPrefixCache=" + sharedPrefixCache + "]";
    }

    private static void requireDelay(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative()) throw new IllegalArgumentException(name + " (" + value + ") must be >= 0");
        if (value.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException(name + " (" + value + ") must be <= " + MAX_DELAY);
        }
    }

    private static void requireAtLeast(String name, int value, int min) {
        if (value < min) throw new IllegalArgumentException(name + " (" + value + ") must be >= " + min);
    }

    /** Starts from the defaults; {@link #build()} validates. */
    public static final class Builder {
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private Duration timeToFirstToken = DEFAULT_TIME_TO_FIRST_TOKEN;
        private Duration interTokenDelay = DEFAULT_INTER_TOKEN_DELAY;
        private int tokensPerChunk = DEFAULT_TOKENS_PER_CHUNK;
        private int maxConcurrentSequences = DEFAULT_MAX_CONCURRENT_SEQUENCES;
        private Duration prefillPerPromptToken = DEFAULT_PREFILL_PER_PROMPT_TOKEN;
        private List<String> modelIds = List.of(DEFAULT_MODEL_ID);
        private boolean acceptAnyModel = DEFAULT_ACCEPT_ANY_MODEL;
        private String apiKey;
        private TokenCounter promptTokenCounter;
        private int defaultMaxTokens = DEFAULT_MAX_TOKENS;
        private int maxRequestBodyBytes = DEFAULT_MAX_REQUEST_BODY_BYTES;
        private int ioThreads = DEFAULT_IO_THREADS;
        private RequestTimingListener timingListener;
        private FaultPlan faultPlan = FaultPlan.none();
        private EarlyStop earlyStop = EarlyStop.none();
        private int reasoningTokens;
        private EmbeddingsConfig embeddings = EmbeddingsConfig.defaults();
        private Duration prefillPerImageToken = Duration.ZERO;
        private int prefixCacheBlocks = DEFAULT_PREFIX_CACHE_BLOCKS;
        private int prefixBlockTokens = DEFAULT_PREFIX_BLOCK_TOKENS;
        private boolean sharedPrefixCache;

        private Builder() {
        }

        private Builder(SimulatorConfig c) {
            host = c.host;
            port = c.port;
            timeToFirstToken = c.timeToFirstToken;
            interTokenDelay = c.interTokenDelay;
            tokensPerChunk = c.tokensPerChunk;
            maxConcurrentSequences = c.maxConcurrentSequences;
            prefillPerPromptToken = c.prefillPerPromptToken;
            modelIds = c.modelIds;
            acceptAnyModel = c.acceptAnyModel;
            apiKey = c.apiKey;
            promptTokenCounter = c.promptTokenCounter;
            defaultMaxTokens = c.defaultMaxTokens;
            maxRequestBodyBytes = c.maxRequestBodyBytes;
            ioThreads = c.ioThreads;
            timingListener = c.timingListener;
            faultPlan = c.faultPlan;
            earlyStop = c.earlyStop;
            reasoningTokens = c.reasoningTokens;
            embeddings = c.embeddings;
            prefillPerImageToken = c.prefillPerImageToken;
            prefixCacheBlocks = c.prefixCacheBlocks;
            prefixBlockTokens = c.prefixBlockTokens;
            sharedPrefixCache = c.sharedPrefixCache;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder timeToFirstToken(Duration timeToFirstToken) {
            this.timeToFirstToken = timeToFirstToken;
            return this;
        }

        public Builder interTokenDelay(Duration interTokenDelay) {
            this.interTokenDelay = interTokenDelay;
            return this;
        }

        public Builder tokensPerChunk(int tokensPerChunk) {
            this.tokensPerChunk = tokensPerChunk;
            return this;
        }

        public Builder maxConcurrentSequences(int maxConcurrentSequences) {
            this.maxConcurrentSequences = maxConcurrentSequences;
            return this;
        }

        public Builder prefillPerPromptToken(Duration prefillPerPromptToken) {
            this.prefillPerPromptToken = prefillPerPromptToken;
            return this;
        }

        public Builder modelIds(List<String> modelIds) {
            this.modelIds = modelIds;
            return this;
        }

        public Builder modelIds(String... modelIds) {
            return modelIds(List.of(modelIds));
        }

        public Builder acceptAnyModel(boolean acceptAnyModel) {
            this.acceptAnyModel = acceptAnyModel;
            return this;
        }

        /** The bearer token clients must send, or null for none. */
        public Builder apiKey(String apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** Counts usage.prompt_tokens, or null for the heuristic. Must be thread-safe. */
        public Builder promptTokenCounter(TokenCounter promptTokenCounter) {
            this.promptTokenCounter = promptTokenCounter;
            return this;
        }

        public Builder defaultMaxTokens(int defaultMaxTokens) {
            this.defaultMaxTokens = defaultMaxTokens;
            return this;
        }

        public Builder maxRequestBodyBytes(int maxRequestBodyBytes) {
            this.maxRequestBodyBytes = maxRequestBodyBytes;
            return this;
        }

        public Builder ioThreads(int ioThreads) {
            this.ioThreads = ioThreads;
            return this;
        }

        /** Told every admitted request's send timestamps, on an I/O thread; or null for none. */
        public Builder timingListener(RequestTimingListener timingListener) {
            this.timingListener = timingListener;
            return this;
        }

        /** Which generation requests get which injected fault; {@link FaultPlan#none()} by default. */
        public Builder faultPlan(FaultPlan faultPlan) {
            this.faultPlan = faultPlan;
            return this;
        }

        /** Simulated EOS before max_tokens; {@link EarlyStop#none()} by default. */
        public Builder earlyStop(EarlyStop earlyStop) {
            this.earlyStop = earlyStop;
            return this;
        }

        /** Reasoning tokens streamed before the content of chat completions; 0 (off) by default. */
        public Builder reasoningTokens(int reasoningTokens) {
            this.reasoningTokens = reasoningTokens;
            return this;
        }

        public Builder embeddings(EmbeddingsConfig embeddings) {
            this.embeddings = embeddings;
            return this;
        }

        /** Extra time to first token per image token; 0 by default. */
        public Builder prefillPerImageToken(Duration prefillPerImageToken) {
            this.prefillPerImageToken = prefillPerImageToken;
            return this;
        }

        /** KV blocks the prefix cache keeps, 0 for none. */
        public Builder prefixCacheBlocks(int prefixCacheBlocks) {
            this.prefixCacheBlocks = prefixCacheBlocks;
            return this;
        }

        /** Tokens per KV block of the prefix cache. */
        public Builder prefixBlockTokens(int prefixBlockTokens) {
            this.prefixBlockTokens = prefixBlockTokens;
            return this;
        }

        /** One prefix cache for every model name (a router, aliases of one engine); false: one per model. */
        public Builder sharedPrefixCache(boolean shared) {
            this.sharedPrefixCache = shared;
            return this;
        }

        public SimulatorConfig build() {
            return new SimulatorConfig(host, port, timeToFirstToken, interTokenDelay, tokensPerChunk,
                    maxConcurrentSequences, prefillPerPromptToken, modelIds, acceptAnyModel, apiKey,
                    promptTokenCounter, defaultMaxTokens, maxRequestBodyBytes, ioThreads, timingListener,
                    faultPlan, earlyStop, reasoningTokens, embeddings, prefillPerImageToken, prefixCacheBlocks,
                    prefixBlockTokens, sharedPrefixCache);
        }
    }
}
