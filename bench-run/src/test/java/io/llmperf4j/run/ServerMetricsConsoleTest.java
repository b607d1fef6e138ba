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
                + "running 4, waiting 4", ServerMetricsConsole.line(summary(4.0, 4.0, 3), 970));
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
                + "peak running 4, waiting 0; the whole server's figures (not one model's), other traffic included",
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
                + "delivered); peak running 4, waiting 4", ServerMetricsConsole.line(summary(4.0, 4.0, 3), 609.48,
                682.07));
        assertEquals("Server (vllm /metrics): 780 generation tokens, 975.0 tok/s (client: 970.0 output tok/s); peak "
                + "running 4, waiting 4", ServerMetricsConsole.line(summary(4.0, 4.0, 3), 970, 970.5));
    }
}
