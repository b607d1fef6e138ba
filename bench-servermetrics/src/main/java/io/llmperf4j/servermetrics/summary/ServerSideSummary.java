package io.llmperf4j.servermetrics.summary;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server's own view of the measured window, for the run summary's {@code server} section. A field is null when
 * the server does not expose what it needs (TGI has no TTFT histogram and no KV-cache gauge, for one) or when no
 * two successful scrapes bracket the window. Property names are camel case here; the summary writer's snake-case
 * strategy turns {@code generationTokensPerS} into {@code generation_tokens_per_s}.
 *
 * @param engine                 {@code vllm}, {@code sglang}, {@code tgi}, or null when no known family was served
 * @param scrapesInWindow        scrapes taken inside the window, successful or not (a successful one where its
 *                               exchange's midpoint lies, a failed one where it was sent)
 * @param failedScrapesInWindow  of those, the failed ones (gaps): a scrape sent inside the window counts here even
 *                               when it failed (timed out) after the window's end
 * @param windowS                the measured window's length in seconds
 * @param scrapeSpanS            seconds between the two scrapes that bracket the window (the last at or before its
 *                               start, the first at or after its end): the span the latency histograms cover, wider
 *                               than the window by up to one interval at each end
 * @param peakRequestsRunning    highest running-requests gauge in the window, summed over the server's engines
 * @param peakRequestsWaiting    highest waiting-requests gauge in the window, summed over the server's engines
 * @param peakKvCacheUsage       highest KV-cache usage in the window, 0–1, the fullest engine
 * @param prefixCacheHitRate     prefix-cache hit tokens / queried tokens in the window (0–1); where the server has
 *                               no counters (vLLM V0), the mean of its own hit-rate gauge over the window
 * @param promptTokens           prompt tokens the server processed in the window
 * @param generationTokens       tokens the server generated in the window, by its own counter. With a warmup the
 *                               counters are interpolated linearly between the scrapes at the window's edges, so the
 *                               warmup before it and idle time after it are left out; a level without warmup takes
 *                               them whole, from its first scrape to its last (nothing else ran in that span)
 * @param generationTokensPerS   {@code generationTokens} per second of the window (of the part scrapes cover, when
 *                               the last scrape came before the window's end): compare with the client's output tok/s
 * @param requestsFinished       requests the server finished in the window (interpolated like the tokens)
 * @param ttft                   server-side time to first token over {@code scrapeSpanS}
 * @param interTokenLatency      server-side time between output tokens (TGI: per-request mean time per token)
 * @param e2eRequestLatency      server-side end-to-end latency; the client's minus this is network, queueing before
 *                               the engine and client overhead
 * @param queueTime              time in the server's queue
 * @param families               which family each figure came from, by figure name ({@code ttft} →
 *                               {@code vllm:time_to_first_token_seconds})
 * @param quantileMethod         how the latency quantiles were computed, in words
 * @param windowStartS           where the measured window starts on the scrapes' time axis: seconds from
 *                               {@code time_s} 0 of {@code <base>_server_metrics.csv} (the level's start), so a page
 *                               can draw the server's series on the client's time axis; null when unknown
 * @param scrapesInsideWindow    successful scrapes strictly inside the window, not at its edges: the gauges' peaks
 *                               are read from these alone, so 0 leaves {@code peakRequestsRunning},
 *                               {@code peakRequestsWaiting} and {@code peakKvCacheUsage} null (not observed: the
 *                               edge scrapes are taken before the first send and after the last response, idle);
 *                               null when unknown (older summaries)
 * @param model                  the run's model when the figures are its series alone (the server labels its series
 *                               by model: vLLM's and SGLang's {@code model_name}); null when they add up every
 *                               series (no model label, or no series for this model: {@code warnings} says so)
 * @param warnings               what makes the figures doubtful, in words (other traffic included, a counter reset,
 *                               latency series with different bucket layouts); empty when none
 */
public record ServerSideSummary(
        String engine,
        int scrapesInWindow,
        int failedScrapesInWindow,
        Double windowS,
        Double scrapeSpanS,
        Double peakRequestsRunning,
        Double peakRequestsWaiting,
        Double peakKvCacheUsage,
        Double prefixCacheHitRate,
        Long promptTokens,
        Long generationTokens,
        Double generationTokensPerS,
        Long requestsFinished,
        ServerLatency ttft,
        ServerLatency interTokenLatency,
        ServerLatency e2eRequestLatency,
        ServerLatency queueTime,
        Map<String, String> families,
        String quantileMethod,
        Double windowStartS,
        Integer scrapesInsideWindow,
        String model,
        List<String> warnings) {

    public static final String QUANTILE_METHOD = "from histogram bucket increases between the scrapes that bracket "
            + "the window, linear interpolation inside a bucket as Prometheus' histogram_quantile does (accurate to a "
            + "bucket's width), capped at mean / (1 - q) (Markov's bound: durations are never negative)";

    /** Without the window's start on the scrapes' time axis. */
    public ServerSideSummary(String engine, int scrapesInWindow, int failedScrapesInWindow, Double windowS,
                             Double scrapeSpanS, Double peakRequestsRunning, Double peakRequestsWaiting,
                             Double peakKvCacheUsage, Double prefixCacheHitRate, Long promptTokens,
                             Long generationTokens, Double generationTokensPerS, Long requestsFinished,
                             ServerLatency ttft, ServerLatency interTokenLatency, ServerLatency e2eRequestLatency,
                             ServerLatency queueTime, Map<String, String> families, String quantileMethod) {
        this(engine, scrapesInWindow, failedScrapesInWindow, windowS, scrapeSpanS, peakRequestsRunning,
                peakRequestsWaiting, peakKvCacheUsage, prefixCacheHitRate, promptTokens, generationTokens,
                generationTokensPerS, requestsFinished, ttft, interTokenLatency, e2eRequestLatency, queueTime,
                families, quantileMethod, null, null, null, List.of());
    }

    /** The engine's figures with nothing recognised: metrics served, but no known engine's names. */
    public boolean unknownEngine() {
        return engine == null;
    }

    /** No scrape fell strictly inside the window: the gauges' peaks were not observed (they are null). */
    public boolean peaksUnobserved() {
        return engine != null && scrapesInsideWindow != null && scrapesInsideWindow == 0;
    }

    /** "no scrape inside the 0.8 s window, only at its edges; --server-metrics-interval to sample faster". */
    public String unobservedPeaksReason() {
        return String.format(java.util.Locale.ROOT, "no scrape inside the %s window, only at its edges; "
                + "--server-metrics-interval to sample faster", windowS == null ? "measured"
                : String.format(java.util.Locale.ROOT, "%.1f s", windowS));
    }

    public ServerSideSummary {
        families = families == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(families));
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }
}
