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
     * run's model) the line ends saying so. Figures the server does not expose read "n/a"; a server none of whose
     * names is known gets one line saying so.
     */
    static String line(ServerSideSummary s, double clientOutputTokensPerSecond) {
        return line(s, clientOutputTokensPerSecond, Double.NaN);
    }

    /**
     * As {@link #line(ServerSideSummary, double)}, the client's figure followed, when it differs, by every token
     * delivered inside the window ({@code deliveredTokensPerSecond}: cancelled and failed requests' too, as the
     * server's counter counts them): "(client: 609.5 output tok/s, 682.1 delivered)".
     */
    static String line(ServerSideSummary s, double clientOutputTokensPerSecond, double deliveredTokensPerSecond) {
        if (s.unknownEngine()) {
            return "Server (/metrics): metrics served, no known engine's names (vLLM, SGLang, TGI, llama.cpp): only "
                    + "the level's *_server_metrics.csv is written (every family, raw)";
        }
        String peaks = s.peaksUnobserved() ? "peak running and waiting not observed (" + s.unobservedPeaksReason() + ")"
                : String.format(Locale.ROOT, "peak running %s, waiting %s%s", fixed(s.peakRequestsRunning(), 0),
                fixed(s.peakRequestsWaiting(), 0), s.peakKvCacheUsage() == null ? ""
                        : String.format(Locale.ROOT, ", KV cache peak %.1f %%", 100 * s.peakKvCacheUsage()));
        return String.format(Locale.ROOT, "Server (%s /metrics): %s generation tokens, %s tok/s (client: %s output "
                        + "tok/s%s); %s%s",
                s.engine(),
                s.generationTokens() == null ? "n/a" : s.generationTokens().toString(),
                fixed(s.generationTokensPerS(), 1), fixed(clientOutputTokensPerSecond, 1),
                delivered(clientOutputTokensPerSecond, deliveredTokensPerSecond), peaks,
                s.model() != null ? "" : "; the whole server's figures (not one model's), other traffic included");
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
