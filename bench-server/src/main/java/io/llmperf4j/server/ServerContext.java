package io.llmperf4j.server;

import io.llmperf4j.servermetrics.vllm.VllmMetricsExposition;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/** What every connection of one server shares. */
final class ServerContext {

    final SimulatorConfig config;
    final SequenceSlots slots;
    final CompletionRequestParser parser;
    final AnthropicRequestParser anthropicParser;
    final EmbeddingsRequestParser embeddingsParser;
    final FaultCounters faults;
    /** Runs the configured prompt TokenCounter off the I/O threads; null when the heuristic is used. */
    final ExecutorService promptCountExecutor;
    final long startedEpochSeconds;
    /** The real engine that generates, or null: the simulator generates ({@link Generation}). */
    final GenerationEngine engine;
    /**
     * What {@code GET /metrics} serves: vLLM-named counts of what this server really did, one set of series per
     * model a request named ({@code model_name}); the configured models' from the start.
     */
    final VllmMetricsExposition metrics;
    /**
     * The simulated KV pool in tokens: the prefix cache's blocks ({@code prefixCacheBlocks × prefixBlockTokens});
     * 0 when the prefix cache is off, and then {@code vllm:kv_cache_usage_perc} is not served.
     */
    final long kvCapacityTokens;
    /** Tokens running requests hold in it: their prompts and what they generated so far. */
    private final AtomicLong kvTokens = new AtomicLong();
    /**
     * The simulated engine's prefix cache of each model id served, made at the model's first request (off when the
     * capacity is 0): one per model, as a real server never serves one model's cached blocks to another (separate
     * engines per model share nothing; vLLM's block hashes carry the model and the LoRA adapter).
     */
    private final Map<String, PrefixCache> prefixCaches = new ConcurrentHashMap<>();
    private final AtomicLong requestCounter = new AtomicLong();

    ServerContext(SimulatorConfig config, ExecutorService promptCountExecutor) {
        this(config, promptCountExecutor, null);
    }

    ServerContext(SimulatorConfig config, ExecutorService promptCountExecutor, GenerationEngine engine) {
        this.config = config;
        this.slots = new SequenceSlots(config.maxConcurrentSequences());
        this.parser = new CompletionRequestParser(config.defaultMaxTokens());
        this.anthropicParser = new AnthropicRequestParser();
        this.embeddingsParser = new EmbeddingsRequestParser(config.embeddings());
        this.faults = new FaultCounters(config.faultPlan());
        this.promptCountExecutor = promptCountExecutor;
        this.startedEpochSeconds = System.currentTimeMillis() / 1000;
        this.engine = engine;
        this.metrics = new VllmMetricsExposition(config.modelIds().get(0));
        config.modelIds().forEach(metrics::model);
        this.kvCapacityTokens = (long) config.prefixCacheBlocks() * config.prefixBlockTokens();
        metrics.serveKvCacheUsage(kvCapacityTokens > 0);
    }

    boolean prefixCacheEnabled() {
        return config.prefixCacheBlocks() > 0;
    }

    /**
     * The prefix cache of {@code model}, each of {@code prefixCacheBlocks} blocks; with {@code sharedPrefixCache} one
     * for every model name.
     */
    PrefixCache prefixCache(String model) {
        return prefixCaches.computeIfAbsent(config.sharedPrefixCache() ? "" : model,
                m -> new PrefixCache(config.prefixCacheBlocks()));
    }

    /**
     * A running request took ({@code > 0}) or freed ({@code < 0}) KV tokens: KV usage is the tokens running requests
     * hold over the pool's capacity, at most 1 (a model of vLLM's blocks in use, without their rounding up to whole
     * blocks, preemption or the prefix cache's free-but-cached blocks).
     */
    void kvTokens(long delta) {
        long held = kvTokens.addAndGet(delta);
        if (kvCapacityTokens > 0) metrics.setKvCacheUsage(Math.min(1.0, Math.max(0, held) / (double) kvCapacityTokens));
    }

    /** Response id: the endpoint's prefix and a per-server counter starting at 1 ("chatcmpl-1", "msg_2"). */
    String nextRequestId(Endpoint endpoint) {
        return endpoint.idPrefix + requestCounter.incrementAndGet();
    }

    /** Whether fault decisions need the request hash ({@link FaultPlan.Selection#REQUEST_HASH}). */
    boolean faultsNeedRequestHash() {
        return !config.faultPlan().isNone() && config.faultPlan().selection() == FaultPlan.Selection.REQUEST_HASH;
    }
}
