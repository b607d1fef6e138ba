package io.llmperf4j.report.metrics;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.llmperf.LlmperfRequestMetrics;
import org.junit.jupiter.api.Test;

/** The worked example of bench-report/METRICS.md §3, for both sets of numbers. */
class MetricsDocExampleTest {

    // content at 200, 230, 250, 290 ms (plus a role chunk and a finish chunk: 6 SSE data events), end at 300 ms,
    // usage 5 output tokens, Llama-2 client count 6 (BOS included)
    private static final RequestRecord RECORD = request(0).events(200 * MS, 230 * MS, 250 * MS, 290 * MS)
            .e2e(300 * MS).usage(520, 5).client(6).build();

    @Test
    void llmperf4jNumbers() {
        RequestMetrics m = RequestMetrics.from(RECORD, TokenCounting.DEFAULT);
        assertEquals(200 * MS, m.ttftNanos().getAsLong());
        assertEquals(300 * MS, m.e2eNanos());
        assertEquals(5, m.outputTokens().getAsInt());
        assertEquals(TokenSource.SERVER_USAGE, m.outputTokenSource());
        assertEquals(5, m.clientOutputTokens().getAsInt());
        assertEquals(25.0 * MS, m.tpotNanos().getAsDouble());
        assertArrayEquals(new long[] {30 * MS, 20 * MS, 40 * MS}, m.itlNanos());
        assertEquals(16.67, m.outputTokensPerSecond().getAsDouble(), 0.005);
    }

    @Test
    void llmperfNumbersForTheSameRequest() {
        LlmperfRequestMetrics llmperf = LlmperfRequestMetrics.from(RECORD);
        assertEquals(6, RECORD.dataEventCount());
        assertEquals(0.290 / 6, llmperf.interTokenLatencyS(), 1e-15);
        assertEquals(6L, llmperf.numberOutputTokens());
        assertEquals(20.0, llmperf.requestOutputThroughputTokenPerS().doubleValue(), 1e-12);
    }
}
