package io.llmperf4j.servermetrics.engines;

/** What a known family measures, whatever the engine calls it. */
public enum MetricRole {
    /** Gauge: requests in the running batch. */
    REQUESTS_RUNNING,
    /** Gauge: requests queued, not yet scheduled. */
    REQUESTS_WAITING,
    /** Gauge: fraction of the KV cache in use, 0–1 (vLLM's {@code _perc} is 0–1 too). */
    KV_CACHE_USAGE,
    /** Counter: prompt tokens found in the prefix cache. */
    PREFIX_CACHE_HIT_TOKENS,
    /** Counter: prompt tokens looked up in the prefix cache. */
    PREFIX_CACHE_QUERIED_TOKENS,
    /** Gauge: the server's own prefix-cache hit rate, 0–1, where it has no counters. */
    PREFIX_CACHE_HIT_RATE,
    /** Counter: prompt (prefill) tokens processed. */
    PROMPT_TOKENS,
    /** Counter: tokens generated. */
    GENERATION_TOKENS,
    /** Gauge: the server's own generation throughput, tokens/s. */
    GENERATION_THROUGHPUT,
    /** Counter: requests finished (vLLM by {@code finished_reason}). */
    REQUESTS_FINISHED,
    /** Counter: preempted requests. */
    PREEMPTIONS,
    /** Histogram, seconds: time to first token. */
    TIME_TO_FIRST_TOKEN,
    /** Histogram, seconds: time between output tokens. */
    INTER_TOKEN_LATENCY,
    /** Histogram, seconds: end-to-end request latency. */
    E2E_REQUEST_LATENCY,
    /** Histogram, seconds: time in the server's queue. */
    REQUEST_QUEUE_TIME,
    /** Histogram, seconds: prefill time. */
    REQUEST_PREFILL_TIME,
    /** Histogram, seconds: decode time. */
    REQUEST_DECODE_TIME
}
