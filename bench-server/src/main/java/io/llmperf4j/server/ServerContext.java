package io.llmperf4j.server;

import io.llmperf4j.servermetrics.vllm.VllmMetricsExposition;
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
    /** What {@code GET /metrics} serves: vLLM-named counts of what this server really did. */
    final VllmMetricsExposition metrics;
    /** The simulated engine's prefix cache (off when its capacity is 0). */
    final PrefixCache prefixCache;
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
        this.prefixCache = new PrefixCache(config.prefixCacheBlocks());
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
