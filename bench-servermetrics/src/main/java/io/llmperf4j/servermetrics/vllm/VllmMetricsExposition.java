package io.llmperf4j.servermetrics.vllm;

import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import io.llmperf4j.servermetrics.exposition.ExpositionWriter;
import io.llmperf4j.servermetrics.exposition.Labels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The metrics of one simulated vLLM engine, one set of series per model it serves ({@link #model(String)}), rendered
 * as vLLM V1 serves them through Python's prometheus_client in
 * text format 0.0.4: the same family names, HELP texts in spirit, labels {@code engine="0"} and
 * {@code model_name}, counters with {@code _total} and a {@code _created} gauge beside each counter and histogram,
 * and vLLM's own bucket bounds. Thread-safe: request handlers on any thread record, the {@code /metrics} handler
 * renders; a histogram's buckets, sum and count are read together, so every rendering is a valid histogram.
 *
 * <p>Serve {@link #render()} with the content type {@link #CONTENT_TYPE}.
 */
public final class VllmMetricsExposition {

    /** The content type to serve {@link #render()} with. */
    public static final String CONTENT_TYPE = ExpositionFormat.PROMETHEUS_TEXT_0_0_4.contentType;

    /** vLLM V1's bounds for {@code time_to_first_token_seconds}. */
    public static final double[] TTFT_BUCKETS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
        1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
    /** vLLM V1's bounds for {@code inter_token_latency_seconds}. */
    public static final double[] ITL_BUCKETS = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0,
        2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
    /** vLLM V1's bounds for {@code e2e_request_latency_seconds} and the request phase histograms. */
    public static final double[] REQUEST_LATENCY_BUCKETS = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
        30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

    private static final String[] PREDECLARED_FINISH_REASONS = {"abort", "length", "stop"};

    private final double createdEpochSeconds;
    /** Every model's metrics, by name, in the order they were first used (the configured ones first). */
    private final Map<String, Model> models = Collections.synchronizedMap(new LinkedHashMap<>());
    /** The engine's KV-cache usage (one pool shared by every model it serves), or NaN when not served. */
    private final AtomicLong kvCacheUsageBits = new AtomicLong(Double.doubleToLongBits(0.0));
    private volatile boolean kvCacheUsageServed = true;

    /** Metrics of a server serving {@code modelName}, created now. */
    public VllmMetricsExposition(String modelName) {
        this(modelName, System.currentTimeMillis() / 1000.0);
    }

    /** As {@link #VllmMetricsExposition(String)}, with a fixed creation time (for byte-exact tests). */
    public VllmMetricsExposition(String modelName, double createdEpochSeconds) {
        this.createdEpochSeconds = createdEpochSeconds;
        model(modelName); // served from the start, as vLLM serves its model's series at 0
    }

    /**
     * The metrics of requests for {@code modelName}, labelled {@code model_name="modelName"}: created (at 0) on first
     * use, as prometheus_client creates a labelled child; every family renders one series per model.
     */
    public Model model(String modelName) {
        Objects.requireNonNull(modelName, "modelName");
        synchronized (models) {
            return models.computeIfAbsent(modelName, Model::new);
        }
    }

    // ---- the engine's (every model's) ---------------------------------------------------------------------------------

    /**
     * The engine's KV-cache usage as vLLM reports it: a fraction 0–1, whatever the {@code _perc} in the name
     * suggests. One pool serves every model, so each model's series reads the same value.
     */
    public void setKvCacheUsage(double fraction) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("KV-cache usage (" + fraction + ") must be within 0..1");
        }
        kvCacheUsageBits.set(Double.doubleToLongBits(fraction));
    }

    /** Whether {@code vllm:kv_cache_usage_perc} is served at all (a server with no KV-cache model leaves it out). */
    public void serveKvCacheUsage(boolean served) {
        kvCacheUsageServed = served;
    }

    /** One model's series: what the server did for requests naming it. Thread-safe. */
    public static final class Model {
        private final Labels labels;
        private final AtomicLong running = new AtomicLong();
        private final AtomicLong waiting = new AtomicLong();
        private final LongAdder promptTokens = new LongAdder();
        private final LongAdder generationTokens = new LongAdder();
        private final LongAdder prefixCacheQueries = new LongAdder();
        private final LongAdder prefixCacheHits = new LongAdder();
        private final LongAdder preemptions = new LongAdder();
        private final Map<String, LongAdder> finished = new ConcurrentHashMap<>();
        private final Histogram ttft = new Histogram(TTFT_BUCKETS);
        private final Histogram itl = new Histogram(ITL_BUCKETS);
        private final Histogram e2e = new Histogram(REQUEST_LATENCY_BUCKETS);
        private final Histogram queue = new Histogram(REQUEST_LATENCY_BUCKETS);

        private Model(String modelName) {
            this.labels = Labels.of("engine", "0", "model_name", modelName);
            for (String reason : PREDECLARED_FINISH_REASONS) finished.put(reason, new LongAdder());
        }

        /** Adds {@code delta} (negative when a request leaves the batch) to the running requests. */
        public void addRequestsRunning(long delta) {
            running.addAndGet(delta);
        }

        /** Adds {@code delta} (negative when a request is scheduled) to the waiting requests. */
        public void addRequestsWaiting(long delta) {
            waiting.addAndGet(delta);
        }

        public void addPromptTokens(long tokens) {
            promptTokens.add(nonNegative(tokens, "prompt tokens"));
        }

        public void addGenerationTokens(long tokens) {
            generationTokens.add(nonNegative(tokens, "generation tokens"));
        }

        /** One prefix-cache lookup: {@code queriedTokens} prompt tokens looked up, {@code hitTokens} found. */
        public void addPrefixCacheLookup(long queriedTokens, long hitTokens) {
            if (hitTokens > queriedTokens) {
                throw new IllegalArgumentException("prefix-cache hits (" + hitTokens + ") exceed the queried tokens ("
                        + queriedTokens + ")");
            }
            prefixCacheQueries.add(nonNegative(queriedTokens, "queried tokens"));
            prefixCacheHits.add(nonNegative(hitTokens, "hit tokens"));
        }

        public void addPreemptions(long n) {
            preemptions.add(nonNegative(n, "preemptions"));
        }

        /** One finished request, by vLLM's {@code finished_reason}. */
        public void addRequestFinished(String finishedReason) {
            finished.computeIfAbsent(finishedReason, r -> new LongAdder()).increment();
        }

        public void observeTimeToFirstTokenSeconds(double seconds) {
            ttft.observe(seconds);
        }

        public void observeInterTokenLatencySeconds(double seconds) {
            itl.observe(seconds);
        }

        public void observeE2eRequestLatencySeconds(double seconds) {
            e2e.observe(seconds);
        }

        public void observeRequestQueueTimeSeconds(double seconds) {
            queue.observe(seconds);
        }
    }

    // ---- rendering ---------------------------------------------------------------------------------------------------

    /** The {@code /metrics} body now: every family once, one series (set) per model. */
    public String render() {
        List<Model> all;
        synchronized (models) {
            all = new ArrayList<>(models.values());
        }
        StringBuilder out = new StringBuilder(16 * 1024 * all.size());
        gauge(out, all, "vllm:num_requests_running", "Number of requests in model execution batches.",
                m -> m.running.get());
        gauge(out, all, "vllm:num_requests_waiting", "Number of requests waiting to be processed.",
                m -> m.waiting.get());
        if (kvCacheUsageServed) {
            double kv = Double.longBitsToDouble(kvCacheUsageBits.get());
            gauge(out, all, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", m -> kv);
        }
        counter(out, all, "vllm:num_preemptions", "Cumulative number of preemption from the engine.",
                m -> m.preemptions.sum());
        counter(out, all, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
                m -> m.prefixCacheQueries.sum());
        counter(out, all, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
                m -> m.prefixCacheHits.sum());
        counter(out, all, "vllm:prompt_tokens", "Number of prefill tokens processed.", m -> m.promptTokens.sum());
        counter(out, all, "vllm:generation_tokens", "Number of generation tokens processed.",
                m -> m.generationTokens.sum());
        requestSuccess(out, all);
        histogram(out, all, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                m -> m.ttft);
        histogram(out, all, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                m -> m.itl);
        // vLLM 0.10 and 0.11 serve the same histogram under its deprecated name too
        histogram(out, all, "vllm:time_per_output_token_seconds",
                "Histogram of time per output token in seconds. DEPRECATED: use vllm:inter_token_latency_seconds.",
                m -> m.itl);
        histogram(out, all, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
                m -> m.e2e);
        histogram(out, all, "vllm:request_queue_time_seconds",
                "Histogram of time spent in WAITING phase for request.", m -> m.queue);
        return out.toString();
    }

    private static void gauge(StringBuilder out, List<Model> all, String name, String help,
                              ToDoubleFunction<Model> value) {
        header(out, name, help, "gauge");
        for (Model m : all) ExpositionWriter.appendSample(name, m.labels, value.applyAsDouble(m), out);
    }

    private void counter(StringBuilder out, List<Model> all, String base, String help, ToLongFunction<Model> value) {
        header(out, base + "_total", help, "counter");
        for (Model m : all) ExpositionWriter.appendSample(base + "_total", m.labels, value.applyAsLong(m), out);
        created(out, all, base, help);
    }

    private void requestSuccess(StringBuilder out, List<Model> all) {
        String help = "Count of successfully processed requests.";
        header(out, "vllm:request_success_total", help, "counter");
        List<Map<String, LongAdder>> sorted = all.stream()
                .map(m -> (Map<String, LongAdder>) new ConcurrentSkipListMap<>(m.finished)).toList();
        for (int i = 0; i < all.size(); i++) {
            for (Map.Entry<String, LongAdder> e : sorted.get(i).entrySet()) {
                ExpositionWriter.appendSample("vllm:request_success_total",
                        all.get(i).labels.with("finished_reason", e.getKey()), e.getValue().sum(), out);
            }
        }
        header(out, "vllm:request_success_created", help, "gauge");
        for (int i = 0; i < all.size(); i++) {
            for (String reason : sorted.get(i).keySet()) {
                ExpositionWriter.appendSample("vllm:request_success_created",
                        all.get(i).labels.with("finished_reason", reason), createdEpochSeconds, out);
            }
        }
    }

    private void histogram(StringBuilder out, List<Model> all, String name, String help,
                           Function<Model, Histogram> histogram) {
        header(out, name, help, "histogram");
        for (Model m : all) {
            Histogram h = histogram.apply(m);
            Labels labels = m.labels;
            Histogram.Snapshot s = h.snapshot();
            long cumulative = 0;
            for (int i = 0; i < h.bounds.length; i++) {
                cumulative += s.counts[i];
                ExpositionWriter.appendSample(name + "_bucket", labels.with("le",
                        ExpositionWriter.formatValue(h.bounds[i])), cumulative, out);
            }
            cumulative += s.counts[h.bounds.length];
            ExpositionWriter.appendSample(name + "_bucket", labels.with("le", "+Inf"), cumulative, out);
            ExpositionWriter.appendSample(name + "_count", labels, cumulative, out);
            ExpositionWriter.appendSample(name + "_sum", labels, s.sum, out);
        }
        created(out, all, name, help);
    }

    private void created(StringBuilder out, List<Model> all, String base, String help) {
        header(out, base + "_created", help, "gauge");
        for (Model m : all) ExpositionWriter.appendSample(base + "_created", m.labels, createdEpochSeconds, out);
    }

    private static void header(StringBuilder out, String name, String help, String type) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static long nonNegative(long n, String what) {
        if (n < 0) throw new IllegalArgumentException(what + " (" + n + ") must be >= 0");
        return n;
    }

    /** Non-cumulative bucket counts; one lock so a snapshot's buckets, sum and count agree. */
    private static final class Histogram {
        final double[] bounds;
        private final long[] counts;
        private double sum;

        record Snapshot(long[] counts, double sum) {
        }

        Histogram(double[] bounds) {
            this.bounds = bounds.clone();
            this.counts = new long[bounds.length + 1];
        }

        synchronized void observe(double v) {
            if (Double.isNaN(v) || v < 0) throw new IllegalArgumentException("observation (" + v + ") must be >= 0");
            int i = 0;
            while (i < bounds.length && v > bounds[i]) i++;
            counts[i]++;
            sum += v;
        }

        synchronized Snapshot snapshot() {
            return new Snapshot(counts.clone(), sum);
        }
    }
}
