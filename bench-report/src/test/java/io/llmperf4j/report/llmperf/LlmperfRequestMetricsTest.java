package io.llmperf4j.report.llmperf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.python.PythonJsonWriter;
import io.llmperf4j.report.testutil.TestResources;
import java.util.List;
import org.junit.jupiter.api.Test;

class LlmperfRequestMetricsTest {

    @Test
    void successfulRequestAsLlmperfDriverComputesIt() {
        LlmperfRequestMetrics m = LlmperfRequestMetrics.from(
                SampleRuns.success(0, 250_000_000L, 2_000_000_000L, 2_100_000_000L, 101, 550, 151));
        assertTrue(m.succeeded());
        assertNull(m.errorCode());
        assertEquals("", m.errorMsg());
        assertEquals(2.0 / 101, m.interTokenLatencyS()); // (last content - send) / SSE data events
        assertEquals(0.25, m.ttftS());
        assertEquals(2.1, m.endToEndLatencyS());
        assertEquals(151 / 2.1, m.requestOutputThroughputTokenPerS());
        assertEquals(701, m.numberTotalTokens());
        assertEquals(151, m.numberOutputTokens());
        assertEquals(550, m.numberInputTokens());
    }

    @Test
    void keysAreInTheOrderOfLlmperfsIndividualFile() {
        List<String> exampleKeys = List.copyOf(TestResources
                .jsonArrayOfObjects("llmperf-examples/individual_anyscale_70b.json").get(0).keySet());
        LlmperfRequestMetrics m = LlmperfRequestMetrics.from(
                SampleRuns.success(0, 250_000_000L, 2_000_000_000L, 2_100_000_000L, 101, 550, 151));
        assertEquals(exampleKeys, List.copyOf(m.toJsonObject().keySet()));
    }

    @Test
    void noContentKeepsLlmperfsIntegerZeroTtft() {
        LlmperfRequestMetrics m = LlmperfRequestMetrics.from(SampleRuns.success(6, -1, -1, 500_000_000L, 2, 500, 1));
        assertEquals(0L, m.ttftS());
        assertEquals(0.0, m.interTokenLatencyS());
        assertEquals(2.0, m.requestOutputThroughputTokenPerS()); // 1 (BOS) / 0.5 s
        String json = PythonJsonWriter.toJson(m.toJsonObject());
        assertTrue(json.contains("\"ttft_s\": 0,\n"), json);
        assertTrue(json.contains("\"inter_token_latency_s\": 0.0,\n"), json);
    }

    @Test
    void noDataEventsGiveZeroInterTokenLatencyInsteadOfLlmperfsDivisionByZero() {
        LlmperfRequestMetrics m = LlmperfRequestMetrics.from(SampleRuns.success(1, -1, -1, 400_000_000L, 0, 500, 1));
        assertEquals(0.0, m.interTokenLatencyS());
    }

    @Test
    void failureKeepsLlmperfKeysWithActorValues() {
        RequestRecord record = SampleRuns.failure(4, 220_000_000L, 900_000_000L, 950_000_000L, 40, 530, 39,
                FailureKind.CONNECTION_CLOSED, -1, "connection reset");
        LlmperfRequestMetrics m = LlmperfRequestMetrics.from(record);
        assertFalse(m.succeeded());
        assertEquals(-1, m.errorCode());
        assertEquals("connection reset", m.errorMsg());
        assertEquals(0.22, m.ttftS()); // content had arrived: kept
        assertEquals(0.9 / 40, m.interTokenLatencyS());
        assertEquals(0L, m.endToEndLatencyS()); // the actor never sets it after an exception
        assertEquals(0L, m.requestOutputThroughputTokenPerS());
        assertEquals(569, m.numberTotalTokens());
        assertEquals("{\n"
                + "    \"error_code\": -1,\n"
                + "    \"error_msg\": \"connection reset\",\n"
                + "    \"inter_token_latency_s\": 0.0225,\n"
                + "    \"ttft_s\": 0.22,\n"
                + "    \"end_to_end_latency_s\": 0,\n"
                + "    \"request_output_throughput_token_per_s\": 0,\n"
                + "    \"number_total_tokens\": 569,\n"
                + "    \"number_output_tokens\": 39,\n"
                + "    \"number_input_tokens\": 530\n"
                + "}", PythonJsonWriter.toJson(m.toJsonObject()));
    }

    @Test
    void failureWithUncountedOutputReportsZeroTokens() {
        LlmperfRequestMetrics m = LlmperfRequestMetrics.from(SampleRuns.failure(2, -1, -1, 50_000_000L, 0, 610, -1,
                FailureKind.CONNECT_FAILED, -1, "connection refused"));
        assertEquals(0, m.numberOutputTokens());
        assertEquals(610, m.numberTotalTokens());
    }

    @Test
    void successWithUncountedOutputIsAProgrammingError() {
        RequestRecord uncounted = SampleRuns.success(0, 1, 2, 3, 1, 550, -1);
        assertThrows(IllegalArgumentException.class, () -> LlmperfRequestMetrics.from(uncounted));
    }
}
