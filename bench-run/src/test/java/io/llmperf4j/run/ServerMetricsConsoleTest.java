package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The console's server line says peaks were not observed when no scrape fell inside the window. */
class ServerMetricsConsoleTest {

    private static ServerSideSummary summary(Double running, Double waiting, Integer inside) {
        return new ServerSideSummary("vllm", 2, 0, 0.8, 0.8, running, waiting, null, null, null, 780L, 975.0, 8L,
                null, null, null, null, Map.of(), ServerSideSummary.QUANTILE_METHOD, 0.0, inside, "m", List.of());
    }

    @Test
    void peaksFromScrapesInsideTheWindow() {
        assertEquals("Server (vllm /metrics): 780 generation tokens, 975.0 tok/s (client: 970.0 output tok/s); peak "
                + "of 3 samples: running 4, waiting 4", ServerMetricsConsole.line(summary(4.0, 4.0, 3), 970));
    }

    @Test
    void onlyEdgeScrapesSayNotObservedInsteadOfZero() {
        assertEquals("Server (vllm /metrics): 780 generation tokens, 975.0 tok/s (client: 970.0 output tok/s); peak "
                + "running and waiting not observed (no scrape inside the 0.8 s window, only at its edges; "
                + "--server-metrics-interval to sample faster)", ServerMetricsConsole.line(summary(null, null, 0), 970));
    }

    @Test
    void wholeServerFiguresSaySo() {
        ServerSideSummary s = new ServerSideSummary("tgi", 2, 0, 0.8, 0.8, 4.0, 0.0, null, null, null, 780L,
                975.0, null, null, null, null, null, Map.of(), ServerSideSummary.QUANTILE_METHOD, 0.0, 1, null,
                List.of("the server's series carry no model label"));
        assertEquals("Server (tgi /metrics): 780 generation tokens, 975.0 tok/s (client: 970.0 output tok/s); "
                + "peak of 1 sample: running 4, waiting 0; the whole server's figures (not one model's), other traffic included",
                ServerMetricsConsole.line(s, 970));
    }

    @Test
    void unknownEngineIsOneLineNotNas() {
        ServerSideSummary s = new ServerSideSummary(null, 2, 0, 0.8, 0.8, null, null, null, null, null, null, null,
                null, null, null, null, null, Map.of(), ServerSideSummary.QUANTILE_METHOD, 0.0, 1, null, List.of());
        assertEquals("Server (/metrics): metrics served, no known engine's names (vLLM, SGLang, TGI, llama.cpp): only "
                + "the level's *_server_metrics.csv is written (every family, raw)", ServerMetricsConsole.line(s, 970));
    }

    @Test
    void tokensDeliveredByCancelledRequestsFollowTheClientsFigureWhenTheyDiffer() {
        assertEquals("Server (vllm /metrics): 780 generation tokens, 975.0 tok/s (client: 609.5 output tok/s, 682.1 "
                + "delivered); peak of 3 samples: running 4, waiting 4", ServerMetricsConsole.line(summary(4.0, 4.0, 3), 609.48,
                682.07));
        assertEquals("Server (vllm /metrics): 780 generation tokens, 975.0 tok/s (client: 970.0 output tok/s); peak "
                + "of 3 samples: running 4, waiting 4", ServerMetricsConsole.line(summary(4.0, 4.0, 3), 970, 970.5));
    }

    private static ServerSideSummary full(Long generation, Double perS, Double from, Double to, boolean reset,
                                          List<String> missing, Double hitRate,
                                          ServerSideSummary.ClientSameSpan client) {
        return new ServerSideSummary("vllm", 8, 1, 6.66, 7.0, 4.0, 2.0, 0.012, hitRate, 900L, generation, perS, 8L,
                null, null, null, null, Map.of(), ServerSideSummary.QUANTILE_METHOD, 0.0, 6, "m", List.of(), from, to,
                reset, missing, 1.0, client, null, null);
    }

    /**
     * Counters that cover part of the window (QA: /metrics 404 from 1 s on, "480 generation tokens, 475.3 tok/s"
     * where the truth was 4,500, unmarked): the line says how much they cover and sets the client's figure over
     * the same span beside them; a reset says the counts are a lower bound; the peaks say they are sampled; the
     * prefix-cache hit rate is shown.
     */
    @Test
    void partialCountersResetSampledPeaksAndTheHitRateAreOnTheLine() {
        ServerSideSummary partial = full(480L, 475.3, 0.0, 1.01, false, List.of(), 0.161,
                new ServerSideSummary.ClientSameSpan(478, 473.3, 7, 0, 4022, 38));
        assertEquals("Server (vllm /metrics, counters over 1.01 of the 6.66 s window (from 0.00 s)): 480 generation "
                + "tokens, 475.3 tok/s (client: 600.0 output tok/s, 473.3 delivered over the same 1.01 s); prefix-cache "
                + "hit rate 16.1 %; peak of 6 samples every 1 s: running 4, waiting 2, KV cache 1.2 %",
                ServerMetricsConsole.line(partial, 600, 675.5));
        ServerSideSummary reset = full(480L, 72.1, 0.0, 6.66, true, List.of(), null, null);
        assertEquals("Server (vllm /metrics, counters reset mid-level: a lower bound): 480 generation tokens, 72.1 "
                + "tok/s (client: 600.0 output tok/s, 675.5 delivered); peak of 6 samples every 1 s: running 4, "
                + "waiting 2, KV cache 1.2 %", ServerMetricsConsole.line(reset, 600, 675.5));
    }

    /**
     * A KV-cache gauge served as NaN is said once, not left out without a word; a peak resting on one sample says so
     * (QA: a 5.6 s window had one good scrape, a hung one holding back the rest).
     */
    @Test
    void aNotANumberKvCacheAndASingleSampleAreSaid() {
        ServerSideSummary s = new ServerSideSummary("vllm", 2, 1, 5.6, 5.6, 4.0, 2.0, null, null, null, 780L, 975.0,
                8L, null, null, null, null, Map.of(ServerSideSummary.KV_CACHE_USAGE, "vllm:kv_cache_usage_perc"),
                ServerSideSummary.QUANTILE_METHOD, 0.0, 1, "m", List.of()).withSampleInterval(1.0);
        assertEquals("Server (vllm /metrics): 780 generation tokens, 975.0 tok/s (client: 970.0 output tok/s); peak "
                + "of 1 sample (sampled every 1 s): running 4, waiting 2, KV cache not a number (the server's gauge "
                + "read NaN)", ServerMetricsConsole.line(s, 970));
    }

    /** A family the server does not serve is named, not left as a bare n/a (QA). */
    @Test
    void missingFamiliesAreNamed() {
        ServerSideSummary s = full(null, null, 0.0, 6.66, false,
                List.of("generation_tokens (vllm:generation_tokens_total)", "prompt_tokens (vllm:prompt_tokens_total)"),
                null, null);
        assertEquals("Server (vllm /metrics): n/a generation tokens, n/a tok/s (client: 600.0 output tok/s); not "
                + "served: vllm:generation_tokens_total; peak of 6 samples every 1 s: running 4, waiting 2, KV cache "
                + "1.2 %", ServerMetricsConsole.line(s, 600, 600));
    }
}
