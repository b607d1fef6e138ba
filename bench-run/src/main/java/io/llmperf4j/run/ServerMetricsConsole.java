package io.llmperf4j.run;

import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;

import java.util.List;
import java.util.Locale;

/** The one console line of a level's server-side metrics, beside the client's figures. */
final class ServerMetricsConsole {
    private ServerMetricsConsole() {
    }

    /**
     * "Server (vllm /metrics): 2520 generation tokens, 146.1 tok/s (client: 146.7 output tok/s); prefix-cache hit
     * rate 16.1 %; peak of 6 samples every 1 s: running 2, waiting 0", the run's model's series alone; where they add up every model's (no model label, or none for the
     * run's model) the line ends saying so. Figures the server does not expose read "n/a"; a server none of whose
     * names is known gets one line saying so.
     */
    static String line(ServerSideSummary s, double clientOutputTokensPerSecond) {
        return line(s, clientOutputTokensPerSecond, Double.NaN);
    }

    /**
     * As {@link #line(ServerSideSummary, double)}, the client's figure followed, when it differs, by every token
     * delivered inside the window ({@code deliveredTokensPerSecond}: cancelled and failed requests' too, as the
     * server's counter counts them): "(client: 609.5 output tok/s, 682.1 delivered)". Where the counters cover less
     * than the window (a late or failed scrape at an edge) the line says how much, and the delivered figure is the
     * client's over the same span; after a counter reset it says the counts are a lower bound; a figure the server
     * does not serve names the family it lacks; the peaks say they are the highest of samples so far apart.
     */
    static String line(ServerSideSummary s, double clientOutputTokensPerSecond, double deliveredTokensPerSecond) {
        if (s.unknownEngine()) {
            return "Server (/metrics): metrics served, no known engine's names (vLLM, SGLang, TGI, llama.cpp): only "
                    + "the level's *_server_metrics.csv is written (every family, raw)";
        }
        boolean partial = s.countersPartial(ServerSideSummarizer.EDGE_SLACK_NANOS / 1e9);
        String delivered = partial && s.clientSameSpan() != null && s.clientSameSpan().outputTokensPerS() != null
                ? String.format(Locale.ROOT, ", %s delivered over the same %.2f s",
                fixed(s.clientSameSpan().outputTokensPerS(), 1), s.countedToS() - s.countedFromS())
                : delivered(clientOutputTokensPerSecond, deliveredTokensPerSecond);
        return String.format(Locale.ROOT, "Server (%s /metrics%s): %s generation tokens, %s tok/s (client: %s output "
                        + "tok/s%s)%s%s; %s%s",
                s.engine(), scope(s, partial),
                s.generationTokens() == null ? "n/a" : s.generationTokens().toString(),
                fixed(s.generationTokensPerS(), 1), fixed(clientOutputTokensPerSecond, 1), delivered,
                missing(s), hitRate(s), peaks(s),
                s.model() != null ? "" : "; the whole server's figures (not one model's), other traffic included");
    }

    /** ", counters over 2.49 of the 2.86 s window", ", counters reset mid-level: a lower bound", both, or "". */
    private static String scope(ServerSideSummary s, boolean partial) {
        String out = "";
        if (partial) {
            String covered = seconds(s.countedToS() - s.countedFromS());
            String window = seconds(s.windowS());
            if (covered.equals(window)) { // a few ms short: say them
                covered = String.format(Locale.ROOT, "%.3f", s.countedToS() - s.countedFromS());
                window = String.format(Locale.ROOT, "%.3f", s.windowS());
            }
            out += ", counters over " + covered + " of the " + window + " s window (from " + seconds(s.countedFromS())
                    + " s)";
        }
        if (s.countersReset()) out += ", counters reset mid-level: a lower bound";
        return out;
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.2f", s);
    }

    /** "; not served: vllm:generation_tokens_total" for the line's figures the server lacks, else "". */
    private static String missing(ServerSideSummary s) {
        List<String> names = s.missingFamilies().stream()
                .filter(m -> m.startsWith("generation_tokens") || m.startsWith("requests_running")
                        || m.startsWith("requests_waiting"))
                .map(m -> m.substring(m.indexOf('(') + 1, m.length() - 1)).toList();
        return names.isEmpty() ? "" : "; not served: " + String.join(", ", names);
    }

    /** "; prefix-cache hit rate 16.1 %" when the server says, else "". */
    private static String hitRate(ServerSideSummary s) {
        return s.prefixCacheHitRate() == null ? "" : String.format(Locale.ROOT, "; prefix-cache hit rate %.1f %%",
                100 * s.prefixCacheHitRate());
    }

    /** "peak of 6 samples every 1 s: running 4, waiting 4, KV cache 0.3 %", or why they were not observed. */
    private static String peaks(ServerSideSummary s) {
        if (s.peaksUnobserved()) {
            return "peak running and waiting not observed (" + s.unobservedPeaksReason() + ")";
        }
        return String.format(Locale.ROOT, "%s: running %s, waiting %s%s", s.peakWords(),
                fixed(s.peakRequestsRunning(), 0), fixed(s.peakRequestsWaiting(), 0),
                s.kvCacheNotANumber() ? ", KV cache not a number (the server's gauge read NaN)"
                        : s.peakKvCacheUsage() == null ? ""
                        : String.format(Locale.ROOT, ", KV cache %.1f %%", 100 * s.peakKvCacheUsage()));
    }

    /** ", 682.1 delivered" when every token delivered is 0.5 % or more above the successes' figure, else "". */
    private static String delivered(double output, double delivered) {
        return Double.isFinite(delivered) && delivered > 1.005 * output ? ", " + fixed(delivered, 1) + " delivered"
                : "";
    }

    private static String fixed(Double v, int decimals) {
        return v == null || v.isNaN() || v.isInfinite() ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
