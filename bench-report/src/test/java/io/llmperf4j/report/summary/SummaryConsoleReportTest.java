package io.llmperf4j.report.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.Slo;
import org.junit.jupiter.api.Test;

class SummaryConsoleReportTest {

    @Test
    void compactTableWithRatesGoodputAndWarnings() {
        BenchmarkRun run = SummaryJsonTest.run(SummaryJsonTest.settingsWithSecrets());
        String text = SummaryConsoleReport.render(run,
                RunMetrics.of(run, MetricsConfig.DEFAULT.withSlo(Slo.parse("ttft:250ms"))));
        String[] lines = text.split("\n");
        assertEquals("llmperf4j: meta-llama/Llama-2-7b-chat-hf, concurrency 4, 12 requests (10 ok, 2 failed) in "
                + "10.500 s (timed out)", lines[0]);
        assertEquals("metric                             n        p50        p90        p99       mean  unit", lines[1]);
        assertEquals("TTFT                              10    245.000    281.000    289.100    245.000  ms", lines[2]);
        assertEquals("ITL (per event)                  490     20.000     20.000     20.000     20.000  ms", lines[4]);
        // no client counts per event in these hand-made records, but the server's usage (50 tokens in 50 events
        // each) gives one token per event (EventTokenCounts): per token as per event; no reasoning, so no TTFRT row
        assertEquals("ITL (per token)                  490     20.000     20.000     20.000     20.000  ms", lines[5]);
        assertEquals("Output throughput: 47.62 tok/s   Request throughput: 0.952 req/s   Errors: 2 of 12 (16.7%)",
                lines[10]);
        assertEquals("Output tokens from: server usage 10, client tokenizer 0 (minus 1 special), none 0", lines[11]);
        assertEquals("Input tokens from: server usage 10, the workload's count 0", lines[12]);
        assertEquals("Goodput (TTFT <= 250 ms): 0.571 req/s, 6 of 12 requests good (50.0%)", lines[13]);
        assertEquals("Warnings:", lines[14]);
        assertTrue(lines[15].startsWith("  [REQUESTS_FAILED] 1 of 12 requests failed (1 HTTP_STATUS: 1x 503 Service Unavailable)"), lines[15]);
        assertTrue(lines[16].startsWith("  [REQUESTS_CANCELLED] 1 request was still in flight"), lines[16]);
        assertTrue(!text.contains("TTFRT"), text);
        assertTrue(text.endsWith("\n"));
    }

    @Test
    void reasoningRunsShowTtfrtUnderTtft() {
        java.util.List<io.llmperf4j.model.RequestRecord> records = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            records.add(io.llmperf4j.report.testutil.Records.request(i).reasoning(40_000_000L + i * 1_000_000L)
                    .evenEvents(100_000_000L, 10_000_000L, 5).e2e(150_000_000L).usage(10, 8).build());
        }
        BenchmarkRun run = io.llmperf4j.report.testutil.Records.run(1_000_000_000L, false, records);
        String[] lines = SummaryConsoleReport.render(run, RunMetrics.of(run, MetricsConfig.DEFAULT)).split("\n");
        assertTrue(lines[2].startsWith("TTFT  "), lines[2]);
        assertTrue(lines[3].startsWith("TTFRT (first reasoning)           10     44.500     48.100     48.910     44.500  ms"), lines[3]);
    }

    @Test
    void undefinedValuesPrintAsDashes() {
        BenchmarkRun empty = io.llmperf4j.report.testutil.Records.run(0, false, java.util.List.of());
        String text = SummaryConsoleReport.render(empty, RunMetrics.of(empty, MetricsConfig.DEFAULT));
        assertTrue(text.contains("TTFT                               0          -          -          -          -  ms"),
                text);
        assertTrue(text.contains("Output throughput: - tok/s"), text);
        assertTrue(text.contains("  [FEW_SAMPLES] No request was recorded"), text);
    }
}
