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
 *                               {@code vllm:time_to_first_token_seconds}); a gauge's peak that is null though its
 *                               family is named here was served as NaN in every sample inside the window
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
 * @param countedFromS           where in the window the counters' span starts, seconds from the window's start: 0
 *                               when the baseline was read before the first send (or, after a warmup, after its last
 *                               request ended and before the window opened); after a warmup still running when the
 *                               window opened, the scrape asked for then, a moment later; later still after a failed
 *                               scrape. Null when no two scrapes bracket the window
 * @param countedToS             where in the window the counters' span ends: {@code windowS} unless the scrapes after
 *                               an instant failed
 * @param countersReset          a counter went back (the server restarted or reset its metrics): the counts are a
 *                               lower bound
 * @param missingFamilies        figures the engine names a family for that the server did not serve, as "figure
 *                               (family)": those figures are null
 * @param sampleIntervalS        the scrape interval: the gauges' peaks are the highest of samples this far apart, not
 *                               the true peaks; null when unknown
 * @param clientSameSpan         what the client saw between the same two instants as the counters; null when not
 *                               computed
 * @param openingScrapeS         how long the exchange of the scrape the counters start from took, in seconds (the
 *                               server read its counters at some instant inside it); null when no two scrapes
 *                               bracket the window
 * @param closingScrapeS         the same for the scrape the counters end at
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
        List<String> warnings,
        Double countedFromS,
        Double countedToS,
        boolean countersReset,
        List<String> missingFamilies,
        Double sampleIntervalS,
        ClientSameSpan clientSameSpan,
        Double openingScrapeS,
        Double closingScrapeS) {

    /**
     * What the client saw between the same two instants as the server's counters ({@code countedFromS} to
     * {@code countedToS} of the window), every request then in flight counted, the warmup's too, as the server's
     * counters count them; and what it saw in the rest of the window, which the counters miss.
     *
     * @param outputTokens        tokens delivered in the counted span (llmperf4j's one rule for a window's tokens)
     * @param outputTokensPerS    those per second of the counted span: the figure to set beside
     *                            {@code generation_tokens_per_s}
     * @param requestsEnded       requests (warmup ones included) whose response ended in the counted span
     * @param warmupRequestsEnded of those, the warmup's
     * @param missedOutputTokens  tokens delivered inside the window but outside the counted span
     * @param missedRequestsEnded requests that ended inside the window but outside the counted span; not those that
     *                            ended before the scrape asked for at the window's opening was answered (a warmup
     *                            request whose end freed a slot for the first measured send: in the counters'
     *                            baseline), unless a failed scrape there put the counters' start later
     * @param contentEvents       content events that arrived in the counted span: the server's generation tokens
     *                            over these are its tokens per event, set against the client's count to tell a
     *                            tokenizer that is not the server's from chunks of several tokens
     * @param promptTokens        the input tokens (the server's usage where sent, else the client's count) of the
     *                            requests whose first token (or, without one, their end) came in the counted span:
     *                            the server counts a prompt when it has prefilled it; null when not computed
     */
    public record ClientSameSpan(double outputTokens, Double outputTokensPerS, int requestsEnded,
                                 int warmupRequestsEnded, double missedOutputTokens, int missedRequestsEnded,
                                 Integer contentEvents, Long promptTokens) {

        /** Without the content events and the prompt tokens (summaries written before them). */
        public ClientSameSpan(double outputTokens, Double outputTokensPerS, int requestsEnded,
                              int warmupRequestsEnded, double missedOutputTokens, int missedRequestsEnded) {
            this(outputTokens, outputTokensPerS, requestsEnded, warmupRequestsEnded, missedOutputTokens,
                    missedRequestsEnded, null, null);
        }
    }

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
                families, quantileMethod, null, null, null, List.of(), null, null, false, List.of(), null, null, null,
                null);
    }

    /** Without the counters' span, reset flag, missing families, sample interval and client figures. */
    public ServerSideSummary(String engine, int scrapesInWindow, int failedScrapesInWindow, Double windowS,
                             Double scrapeSpanS, Double peakRequestsRunning, Double peakRequestsWaiting,
                             Double peakKvCacheUsage, Double prefixCacheHitRate, Long promptTokens,
                             Long generationTokens, Double generationTokensPerS, Long requestsFinished,
                             ServerLatency ttft, ServerLatency interTokenLatency, ServerLatency e2eRequestLatency,
                             ServerLatency queueTime, Map<String, String> families, String quantileMethod,
                             Double windowStartS, Integer scrapesInsideWindow, String model, List<String> warnings) {
        this(engine, scrapesInWindow, failedScrapesInWindow, windowS, scrapeSpanS, peakRequestsRunning,
                peakRequestsWaiting, peakKvCacheUsage, prefixCacheHitRate, promptTokens, generationTokens,
                generationTokensPerS, requestsFinished, ttft, interTokenLatency, e2eRequestLatency, queueTime,
                families, quantileMethod, windowStartS, scrapesInsideWindow, model, warnings, null, null, false,
                List.of(), null, null, null, null);
    }

    /** A copy whose gauges' peaks are said to be of samples {@code seconds} apart (the scrape interval). */
    public ServerSideSummary withSampleInterval(double seconds) {
        return new ServerSideSummary(engine, scrapesInWindow, failedScrapesInWindow, windowS, scrapeSpanS,
                peakRequestsRunning, peakRequestsWaiting, peakKvCacheUsage, prefixCacheHitRate, promptTokens,
                generationTokens, generationTokensPerS, requestsFinished, ttft, interTokenLatency, e2eRequestLatency,
                queueTime, families, quantileMethod, windowStartS, scrapesInsideWindow, model, warnings, countedFromS,
                countedToS, countersReset, missingFamilies, seconds, clientSameSpan, openingScrapeS, closingScrapeS);
    }

    /** A copy with what the client saw in the counters' span, and {@code warning} (when not null) added last. */
    public ServerSideSummary withClient(ClientSameSpan client, String warning) {
        List<String> all = new java.util.ArrayList<>(warnings);
        if (warning != null) all.add(warning);
        return withClient(client, all);
    }

    /** A copy with what the client saw in the counters' span, and {@code warnings} in place of these. */
    public ServerSideSummary withClient(ClientSameSpan client, List<String> warnings) {
        return new ServerSideSummary(engine, scrapesInWindow, failedScrapesInWindow, windowS, scrapeSpanS,
                peakRequestsRunning, peakRequestsWaiting, peakKvCacheUsage, prefixCacheHitRate, promptTokens,
                generationTokens, generationTokensPerS, requestsFinished, ttft, interTokenLatency, e2eRequestLatency,
                queueTime, families, quantileMethod, windowStartS, scrapesInsideWindow, model, warnings, countedFromS,
                countedToS, countersReset, missingFamilies, sampleIntervalS, client, openingScrapeS, closingScrapeS);
    }

    /**
     * True when the counters cover less of the window than all of it (by more than {@code slackS} at either edge: a
     * failed or late scrape at an edge) and the client saw tokens or a request's end in the rest (or was not asked).
     */
    public boolean countersPartial(double slackS) {
        if (countedFromS == null || countedToS == null || windowS == null) return false;
        boolean partial = countedFromS > slackS || windowS - countedToS > slackS;
        // a part the client saw nothing in (no token, no request's end) leaves the counts whole: nothing to mark
        return partial && (clientSameSpan == null || clientSameSpan.missedOutputTokens() > 0
                || clientSameSpan.missedRequestsEnded() > 0);
    }

    /** The engine's figures with nothing recognised: metrics served, but no known engine's names. */
    public boolean unknownEngine() {
        return engine == null;
    }

    /** No scrape fell strictly inside the window: the gauges' peaks were not observed (they are null). */
    public boolean peaksUnobserved() {
        return engine != null && scrapesInsideWindow != null && scrapesInsideWindow == 0;
    }

    /**
     * "peak of 6 samples every 1 s", "peak of 1 sample (sampled every 1 s)": how many samples the peaks rest on (a
     * scrape that waits for its timeout holds back the next, so a 5.6 s window can have one); "peak of samples" where
     * the count or the interval is not known.
     */
    public String peakWords() {
        String samples = scrapesInsideWindow == null ? "samples"
                : scrapesInsideWindow + (scrapesInsideWindow == 1 ? " sample" : " samples");
        if (sampleIntervalS == null) return "peak of " + samples;
        String every = "every " + new java.math.BigDecimal(sampleIntervalS).round(new java.math.MathContext(3))
                .stripTrailingZeros().toPlainString() + " s";
        return "peak of " + samples + (scrapesInsideWindow != null && scrapesInsideWindow == 1
                ? " (sampled " + every + ")" : " " + every);
    }

    /**
     * The KV cache's family was served but read NaN (not a number) in every sample inside the window: its peak is
     * null, and the line says why instead of leaving it out unsaid.
     */
    public boolean kvCacheNotANumber() {
        return peakKvCacheUsage == null && families.containsKey(KV_CACHE_USAGE) && !peaksUnobserved();
    }

    /**
     * The server's inter-token figure is each request's mean time per token (TGI's
     * {@code tgi_request_mean_time_per_token_duration}), not the gaps between tokens that the client's ITL pools: a
     * page or line that sets the two side by side says which is which.
     */
    public boolean interTokenLatencyIsPerRequestMean() {
        return "tgi_request_mean_time_per_token_duration".equals(families.get("inter_token_latency"));
    }

    /** The {@link #families} key of the KV cache's peak. */
    public static final String KV_CACHE_USAGE = "kv_cache_usage";

    /** "no scrape inside the 0.8 s window, only at its edges; --server-metrics-interval to sample faster". */
    public String unobservedPeaksReason() {
        return String.format(java.util.Locale.ROOT, "no scrape inside the %s window, only at its edges; "
                + "--server-metrics-interval to sample faster", windowS == null ? "measured"
                : String.format(java.util.Locale.ROOT, "%.1f s", windowS));
    }

    public ServerSideSummary {
        families = families == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(families));
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
        missingFamilies = missingFamilies == null ? List.of() : List.copyOf(missingFamilies);
    }
}
