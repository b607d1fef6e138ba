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
        assertEquals("TTFT                              10    240.124    280.232    290.000    245.000  ms", lines[2]);
        assertEquals("ITL (per event)                  490     20.000     20.000     20.000     20.000  ms", lines[4]);
        assertEquals("Output throughput: 47.62 tok/s   Request throughput: 0.952 req/s   Errors: 2 of 12 (16.7%)",
                lines[9]);
        assertEquals("Output tokens from: server usage 10, client tokenizer 0 (minus 1 special), none 0", lines[10]);
        assertEquals("Goodput (TTFT <= 250 ms): 0.571 req/s, 6 of 12 requests good (50.0%)", lines[11]);
        assertEquals("Warnings:", lines[12]);
        assertTrue(lines[13].startsWith("  [REQUESTS_FAILED] 1 of 12 requests failed (1 HTTP_STATUS)"), lines[13]);
        assertTrue(lines[14].startsWith("  [REQUESTS_CANCELLED] 1 request was still in flight"), lines[14]);
        assertTrue(text.endsWith("\n"));
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
