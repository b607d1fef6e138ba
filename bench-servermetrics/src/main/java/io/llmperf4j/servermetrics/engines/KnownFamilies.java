package io.llmperf4j.servermetrics.engines;

import static io.llmperf4j.servermetrics.engines.KnownFamily.Kind.COUNTER;
import static io.llmperf4j.servermetrics.engines.KnownFamily.Kind.GAUGE;
import static io.llmperf4j.servermetrics.engines.KnownFamily.Kind.HISTOGRAM;
import static io.llmperf4j.servermetrics.engines.KnownFamily.Kind.HISTOGRAM_SUM;
import static io.llmperf4j.servermetrics.engines.MetricRole.E2E_REQUEST_LATENCY;
import static io.llmperf4j.servermetrics.engines.MetricRole.GENERATION_THROUGHPUT;
import static io.llmperf4j.servermetrics.engines.MetricRole.GENERATION_TOKENS;
import static io.llmperf4j.servermetrics.engines.MetricRole.INTER_TOKEN_LATENCY;
import static io.llmperf4j.servermetrics.engines.MetricRole.KV_CACHE_USAGE;
import static io.llmperf4j.servermetrics.engines.MetricRole.PREEMPTIONS;
import static io.llmperf4j.servermetrics.engines.MetricRole.PREFIX_CACHE_HIT_RATE;
import static io.llmperf4j.servermetrics.engines.MetricRole.PREFIX_CACHE_HIT_TOKENS;
import static io.llmperf4j.servermetrics.engines.MetricRole.PREFIX_CACHE_QUERIED_TOKENS;
import static io.llmperf4j.servermetrics.engines.MetricRole.PROMPT_TOKENS;
import static io.llmperf4j.servermetrics.engines.MetricRole.REQUESTS_FINISHED;
import static io.llmperf4j.servermetrics.engines.MetricRole.REQUESTS_RUNNING;
import static io.llmperf4j.servermetrics.engines.MetricRole.REQUESTS_WAITING;
import static io.llmperf4j.servermetrics.engines.MetricRole.REQUEST_DECODE_TIME;
import static io.llmperf4j.servermetrics.engines.MetricRole.REQUEST_PREFILL_TIME;
import static io.llmperf4j.servermetrics.engines.MetricRole.REQUEST_QUEUE_TIME;
import static io.llmperf4j.servermetrics.engines.MetricRole.TIME_TO_FIRST_TOKEN;
import static io.llmperf4j.servermetrics.engines.ServerEngine.LLAMACPP;
import static io.llmperf4j.servermetrics.engines.ServerEngine.SGLANG;
import static io.llmperf4j.servermetrics.engines.ServerEngine.TGI;
import static io.llmperf4j.servermetrics.engines.ServerEngine.VLLM;

import java.util.List;
import java.util.function.Predicate;

/**
 * The one table of families we know, per engine and role. Within an (engine, role) pair the rows are in order of
 * preference: the current name first, then older ones a server may still serve. Sources: vLLM V1
 * {@code vllm/v1/metrics/loggers.py} and {@code docs/design/metrics.md}; SGLang {@code srt/metrics/collector.py}
 * ({@code --enable-metrics}); TGI {@code docs/source/reference/metrics.md}; llama.cpp {@code tools/server/README.md}
 * ({@code llama-server --metrics}). TGI has no TTFT histogram; llama.cpp has no latency histograms.
 */
public final class KnownFamilies {

    /** Every known family. */
    public static final List<KnownFamily> ALL = List.of(
            // ---- vLLM (labels model_name, engine; counters gain _total when scraped)
            row(VLLM, REQUESTS_RUNNING, "vllm:num_requests_running", GAUGE, "requests in model execution batches"),
            row(VLLM, REQUESTS_WAITING, "vllm:num_requests_waiting", GAUGE, "requests waiting to be scheduled"),
            row(VLLM, KV_CACHE_USAGE, "vllm:kv_cache_usage_perc", GAUGE, "0-1 despite the name"),
            row(VLLM, KV_CACHE_USAGE, "vllm:gpu_cache_usage_perc", GAUGE, "deprecated in 0.9; 0-1"),
            row(VLLM, PREFIX_CACHE_HIT_TOKENS, "vllm:prefix_cache_hits", COUNTER, "tokens, not requests"),
            row(VLLM, PREFIX_CACHE_HIT_TOKENS, "vllm:gpu_prefix_cache_hits", COUNTER, "deprecated in 0.9"),
            row(VLLM, PREFIX_CACHE_QUERIED_TOKENS, "vllm:prefix_cache_queries", COUNTER, "tokens, not requests"),
            row(VLLM, PREFIX_CACHE_QUERIED_TOKENS, "vllm:gpu_prefix_cache_queries", COUNTER, "deprecated in 0.9"),
            row(VLLM, PREFIX_CACHE_HIT_RATE, "vllm:gpu_prefix_cache_hit_rate", GAUGE, "V0 only, 0-1"),
            row(VLLM, PROMPT_TOKENS, "vllm:prompt_tokens", COUNTER, "prefill tokens"),
            row(VLLM, GENERATION_TOKENS, "vllm:generation_tokens", COUNTER, "generated tokens"),
            row(VLLM, REQUESTS_FINISHED, "vllm:request_success", COUNTER, "by finished_reason stop/length/abort"),
            row(VLLM, PREEMPTIONS, "vllm:num_preemptions", COUNTER, "preempted requests"),
            row(VLLM, TIME_TO_FIRST_TOKEN, "vllm:time_to_first_token_seconds", HISTOGRAM, "seconds"),
            row(VLLM, INTER_TOKEN_LATENCY, "vllm:inter_token_latency_seconds", HISTOGRAM, "seconds"),
            row(VLLM, INTER_TOKEN_LATENCY, "vllm:time_per_output_token_seconds", HISTOGRAM,
                    "deprecated in 0.11, removed later"),
            row(VLLM, E2E_REQUEST_LATENCY, "vllm:e2e_request_latency_seconds", HISTOGRAM, "seconds"),
            row(VLLM, REQUEST_QUEUE_TIME, "vllm:request_queue_time_seconds", HISTOGRAM, "seconds"),
            row(VLLM, REQUEST_PREFILL_TIME, "vllm:request_prefill_time_seconds", HISTOGRAM, "seconds"),
            row(VLLM, REQUEST_DECODE_TIME, "vllm:request_decode_time_seconds", HISTOGRAM, "seconds"),
            // ---- SGLang (--enable-metrics; labels model_name, tp_rank, ...)
            row(SGLANG, REQUESTS_RUNNING, "sglang:num_running_reqs", GAUGE, "running requests"),
            row(SGLANG, REQUESTS_WAITING, "sglang:num_queue_reqs", GAUGE, "requests in the waiting queue"),
            row(SGLANG, KV_CACHE_USAGE, "sglang:token_usage", GAUGE, "KV token pool usage, 0-1"),
            row(SGLANG, PROMPT_TOKENS, "sglang:prompt_tokens", COUNTER, "prefill tokens"),
            row(SGLANG, PREFIX_CACHE_HIT_TOKENS, "sglang:cached_tokens", COUNTER, "prompt tokens served from cache"),
            row(SGLANG, PREFIX_CACHE_QUERIED_TOKENS, "sglang:prompt_tokens", COUNTER, "all prompt tokens"),
            row(SGLANG, PREFIX_CACHE_HIT_RATE, "sglang:cache_hit_rate", GAUGE, "0-1"),
            row(SGLANG, GENERATION_TOKENS, "sglang:generation_tokens", COUNTER, "generated tokens"),
            row(SGLANG, GENERATION_THROUGHPUT, "sglang:gen_throughput", GAUGE, "tokens/s"),
            row(SGLANG, REQUESTS_FINISHED, "sglang:num_requests", COUNTER, "requests processed"),
            row(SGLANG, TIME_TO_FIRST_TOKEN, "sglang:time_to_first_token_seconds", HISTOGRAM, "seconds"),
            row(SGLANG, INTER_TOKEN_LATENCY, "sglang:inter_token_latency_seconds", HISTOGRAM, "seconds"),
            row(SGLANG, INTER_TOKEN_LATENCY, "sglang:time_per_output_token_seconds", HISTOGRAM, "older name"),
            row(SGLANG, E2E_REQUEST_LATENCY, "sglang:e2e_request_latency_seconds", HISTOGRAM, "seconds"),
            row(SGLANG, REQUEST_QUEUE_TIME, "sglang:queue_time_seconds", HISTOGRAM, "seconds"),
            // ---- TGI (no _total on counters; durations in seconds; no TTFT histogram)
            row(TGI, REQUESTS_RUNNING, "tgi_batch_current_size", GAUGE, "requests in the current batch"),
            row(TGI, REQUESTS_WAITING, "tgi_queue_size", GAUGE, "requests in the queue"),
            row(TGI, GENERATION_TOKENS, "tgi_request_generated_tokens", HISTOGRAM_SUM,
                    "per-request histogram; its _sum counts every generated token"),
            row(TGI, PROMPT_TOKENS, "tgi_request_input_length", HISTOGRAM_SUM, "per-request histogram, _sum"),
            row(TGI, REQUESTS_FINISHED, "tgi_request_success", COUNTER, "successful requests"),
            row(TGI, INTER_TOKEN_LATENCY, "tgi_request_mean_time_per_token_duration", HISTOGRAM,
                    "per-request mean, seconds"),
            row(TGI, E2E_REQUEST_LATENCY, "tgi_request_duration", HISTOGRAM, "seconds"),
            row(TGI, REQUEST_QUEUE_TIME, "tgi_request_queue_duration", HISTOGRAM, "seconds"),
            // ---- llama.cpp (llama-server --metrics; no labels, no histograms)
            row(LLAMACPP, REQUESTS_RUNNING, "llamacpp:requests_processing", GAUGE, "requests being processed"),
            row(LLAMACPP, REQUESTS_WAITING, "llamacpp:requests_deferred", GAUGE, "requests deferred (waiting)"),
            row(LLAMACPP, KV_CACHE_USAGE, "llamacpp:kv_cache_usage_ratio", GAUGE, "0-1; older builds only"),
            row(LLAMACPP, PROMPT_TOKENS, "llamacpp:prompt_tokens", COUNTER, "prompt tokens processed"),
            row(LLAMACPP, GENERATION_TOKENS, "llamacpp:tokens_predicted", COUNTER, "generated tokens"));

    private KnownFamilies() {
    }

    /** The rows for one engine and role, in order of preference (empty when that engine does not expose it). */
    public static List<KnownFamily> of(ServerEngine engine, MetricRole role) {
        return ALL.stream().filter(f -> f.engine() == engine && f.role() == role).toList();
    }

    /**
     * The preferred row for {@code engine} and {@code role} that the server actually serves ({@code served} says
     * whether a sample name was seen), or null.
     */
    public static KnownFamily find(ServerEngine engine, MetricRole role, Predicate<String> served) {
        for (KnownFamily f : of(engine, role)) {
            for (String sampleName : f.valueSampleNames()) {
                if (served.test(sampleName)) return f;
            }
        }
        return null;
    }

    /** The first row that owns a sample of this name, or null: the family is kept raw. */
    public static KnownFamily owning(String sampleName) {
        for (KnownFamily f : ALL) {
            if (f.owns(sampleName)) return f;
        }
        return null;
    }

    private static KnownFamily row(ServerEngine engine, MetricRole role, String name, KnownFamily.Kind kind,
                                   String note) {
        return new KnownFamily(engine, role, name, kind, note);
    }
}
