package io.llmperf4j.run;

import io.llmperf4j.servermetrics.summary.ServerSideSummary;

import java.util.Locale;

/** The one console line of a level's server-side metrics, beside the client's figures. */
final class ServerMetricsConsole {
    private ServerMetricsConsole() {
    }

    /**
     * "Server (vllm /metrics): 2520 generation tokens, 146.1 tok/s (client: 146.7 output tok/s); peak running 2,
     * waiting 0". Figures the server does not expose read "n/a".
     */
    static String line(ServerSideSummary s, double clientOutputTokensPerSecond) {
        String peaks = s.peaksUnobserved() ? "peak running and waiting not observed (" + s.unobservedPeaksReason() + ")"
                : String.format(Locale.ROOT, "peak running %s, waiting %s%s", fixed(s.peakRequestsRunning(), 0),
                fixed(s.peakRequestsWaiting(), 0), s.peakKvCacheUsage() == null ? ""
                        : String.format(Locale.ROOT, ", KV cache peak %.1f %%", 100 * s.peakKvCacheUsage()));
        return String.format(Locale.ROOT, "Server (%s /metrics): %s generation tokens, %s tok/s (client: %s output "
                        + "tok/s); %s",
                s.engine() == null ? "unknown engine's" : s.engine(),
                s.generationTokens() == null ? "n/a" : s.generationTokens().toString(),
                fixed(s.generationTokensPerS(), 1), fixed(clientOutputTokensPerSecond, 1), peaks);
    }


    private static String fixed(Double v, int decimals) {
        return v == null || v.isNaN() || v.isInfinite() ? "n/a" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
