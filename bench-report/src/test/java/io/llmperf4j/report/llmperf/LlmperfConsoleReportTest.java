package io.llmperf4j.report.llmperf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.report.testutil.TestResources;
import org.junit.jupiter.api.Test;

/** Golden texts are what Python printed for the same values (pandas/numpy scalars through print and f-strings). */
class LlmperfConsoleReportTest {

    @Test
    void mixedRunPrintsLikeLlmperf() {
        String text = LlmperfConsoleReport.render(SampleRuns.mixed());
        assertEquals(TestResources.text("golden/mixed_console.txt"), text);
        assertTrue(text.startsWith("\\Results for token benchmark for meta-llama/Llama-2-7b-chat-hf queried with "
                + "the openai api.\n\ninter_token_latency_s\n    p25 = "), text);
        assertTrue(text.contains("Number Of Errored Requests: 3\nError Code Frequency\n{500: 2, -1: 1}\n"), text);
        assertTrue(text.contains("    min = 480\n    max = 601\n"), text);
    }

    @Test
    void timedOutRunWithoutSuccessPrintsTheTimeoutLineAndNan() {
        String text = LlmperfConsoleReport.render(LlmperfSummaryTest.allFailedRun());
        assertEquals(TestResources.text("golden/allfailed_console.txt"), text);
        assertTrue(text.startsWith("Test timed out before all requests could be completed.\n\\Results"), text);
    }

    @Test
    void singleSuccessPrintsNanStddevAndNoErrorBlock() {
        String text = LlmperfConsoleReport.render(LlmperfSummaryTest.singleRun());
        assertEquals(TestResources.text("golden/single_console.txt"), text);
        assertTrue(text.contains("Number Of Errored Requests: 0\nOverall Output Throughput: "), text);
    }
}
