package io.llmperf4j.run;

import io.llmperf4j.servermetrics.summary.ServerSideSummary;

import java.util.Locale;

/** The one console line of a level's server-side metrics, beside the client's figures. */
final class ServerMetricsConsole {
    private ServerMetricsConsole() {
    }

    /**
     * "Server (vllm /metrics): 2520 generation tokens, 146.1 tok/s (client: 146.7 output tok/s); peak running 2,
     * waiting 0", the run's model's series alone; where they add up every model's (no model label, or none for the
     * run's model) the line ends saying so. Figures the server does not expose read "n/a"; a server none of whose names is known
     * gets one line saying so.
     */
    static String line(ServerSideSummary s, double clientOutputTokensPerSecond) {
        if (s.unknownEngine()) {
            return "Server (/metrics): metrics served, no known engine's names (vLLM, SGLang, TGI, llama.cpp): only "
                    + "the level's *_server_metrics.csv is written (every family, raw)";
        }
        String peaks = s.peaksUnobserved() ? "peak running and waiting not observed (" + s.unobservedPeaksReason() + ")"
                : String.format(Locale.ROOT, "peak running %s, waiting %s%s", fixed(s.peakRequestsRunning(), 0),
                fixed(s.peakRequestsWaiting(), 0), s.peakKvCacheUsage() == null ? ""
                        : String.format(Locale.ROOT, ", KV cache peak %.1f %%", 100 * s.peakKvCacheUsage()));
        return String.format(Locale.ROOT, "Server (%s /metrics): %s generation tokens, %s tok/s (client: %s output "
                        + "tok/s); %s%s",
                s.engine(),
                s.generationTokens() == null ? "n/a" : s.generationTokens().toString(),
                fixed(s.generationTokensPerS(), 1), fixed(clientOutputTokensPerSecond, 1), peaks,
                s.model() != null ? "" : "; the whole server's figures (not one model's), other traffic included");
    }


    private static String fixed(Double v, int decimals) {
        return v == null || v.isNaN() || v.isInfinite() ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
