package io.llmperf4j.server;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of {@code POST /v1/embeddings}. The response is sent {@code baseLatency + perInputTokenLatency *
 * inputTokens} after the request arrived (a scheduled event-loop task, no thread sleeps), where inputTokens is the
 * request's {@code usage.prompt_tokens}.
 *
 * @param dimensions            length of each vector (a request's {@code dimensions} may ask for fewer), default 384
 * @param baseLatency           fixed cost of one request, default 5 ms
 * @param perInputTokenLatency  cost of each input token, default 10 µs
 * @param maxBatchSize          the most inputs one request may carry (more is a 400), default 2048
 */
public record EmbeddingsConfig(int dimensions, Duration baseLatency, Duration perInputTokenLatency, int maxBatchSize) {

    public static final int DEFAULT_DIMENSIONS = 384;
    public static final int MAX_DIMENSIONS = 65_536;
    public static final Duration DEFAULT_BASE_LATENCY = Duration.ofMillis(5);
    public static final Duration DEFAULT_PER_INPUT_TOKEN_LATENCY = Duration.ofNanos(10_000);
    public static final int DEFAULT_MAX_BATCH_SIZE = 2048;

    public EmbeddingsConfig {
        if (dimensions < 1 || dimensions > MAX_DIMENSIONS) {
            throw new IllegalArgumentException("dimensions (" + dimensions + ") must be within [1, " + MAX_DIMENSIONS
                    + "]");
        }
        requireDelay("baseLatency", baseLatency);
        requireDelay("perInputTokenLatency", perInputTokenLatency);
        if (maxBatchSize < 1) throw new IllegalArgumentException("maxBatchSize (" + maxBatchSize + ") must be >= 1");
    }

    public static EmbeddingsConfig defaults() {
        return new EmbeddingsConfig(DEFAULT_DIMENSIONS, DEFAULT_BASE_LATENCY, DEFAULT_PER_INPUT_TOKEN_LATENCY,
                DEFAULT_MAX_BATCH_SIZE);
    }

    public EmbeddingsConfig withDimensions(int dimensions) {
        return new EmbeddingsConfig(dimensions, baseLatency, perInputTokenLatency, maxBatchSize);
    }

    public EmbeddingsConfig withLatency(Duration baseLatency, Duration perInputTokenLatency) {
        return new EmbeddingsConfig(dimensions, baseLatency, perInputTokenLatency, maxBatchSize);
    }

    public EmbeddingsConfig withMaxBatchSize(int maxBatchSize) {
        return new EmbeddingsConfig(dimensions, baseLatency, perInputTokenLatency, maxBatchSize);
    }

    private static void requireDelay(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.compareTo(SimulatorConfig.MAX_DELAY) > 0) {
            throw new IllegalArgumentException(name + " (" + value + ") must be within [0, " + SimulatorConfig.MAX_DELAY
                    + "]");
        }
    }
}
