package io.llmperf4j.report.summary;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.testutil.JsonSchemaValidation;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The words of the SLO verdict, and the note naming the goodput bound chosen among several terms. */
class SloVerdictTextTest {

    @Test
    void objectivesReadAsEstimateAgainstLimitWithTheirInterval() {
        SloVerdictJson v = new SloVerdictJson(false, true, 40, 30, 0.95, true, List.of(
                new SloVerdictJson.ObjectiveJson("ttft_p99<=500ms", 612.34, 540.0, 700.0, 500, "ms", false, true, 40,
                        9),
                new SloVerdictJson.ObjectiveJson("e2e_p99<=20000ms", 290.88, 220.7, null, 20000, "ms", true, false,
                        40, 0),
                new SloVerdictJson.ObjectiveJson("ttft<=500ms@99%", 0.975, 0.87, 0.995, 0.99, "fraction", false,
                        false, 40, 1),
                new SloVerdictJson.ObjectiveJson("error_rate<=1%", 0.0, 0.0, 0.0876, 0.01, "fraction", true, false,
                        40, 0)));
        assertEquals("SLO: FAIL over 40 requests (95 % intervals; TTFT and E2E from the intended send)\n"
                + "  ttft_p99 612.3 ms > 500 ms: missed (95 % CI 540.0-700.0 ms, resolved)\n"
                + "  e2e_p99 290.9 ms <= 20000 ms: met (95 % CI 220.7 ms to unbounded, unresolved: judged by the "
                + "estimate)\n"
                + "  ttft<=500ms attained 97.5 % < 99 %: missed (95 % CI 87.0-99.5 %, unresolved: judged by the "
                + "estimate)\n"
                + "  error_rate 0.0 % <= 1 %: met (95 % CI 0.0-8.8 %, unresolved: judged by the estimate)\n",
                SloVerdictText.block(v));
    }

    @Test
    void fewRequestsAndNoSamplesAreSaid() {
        SloVerdictJson v = new SloVerdictJson(true, false, 3, 30, 0.95, false, List.of(
                new SloVerdictJson.ObjectiveJson("itl_p99<=100ms", null, null, null, 100, "ms", false, false, 0, 0)));
        assertEquals("SLO: PASS over 3 requests (95 % intervals; fewer than 30 requests: no objective is resolved)",
                SloVerdictText.header(v));
        assertEquals("itl_p99 - > 100 ms: missed (no samples, unresolved: judged by the estimate)",
                SloVerdictText.line(v.objectives().get(0)));
    }

    @Test
    void mergedGoodputBoundsNameTheTermsBehindThem() {
        SloObjectives implied = SloObjectives.parse("ttft_p99<=500ms,ttft<=300ms@90%,tpot_p90<=50ms");
        assertEquals(List.of("TTFT bound 300 ms: the tightest of ttft_p99<=500ms, ttft<=300ms@90%"),
                implied.mergedBounds(), "one term for TPOT: nothing to say");
        SloObjectives explicit = SloObjectives.parse("ttft_p99<=500ms,ttft=800ms,e2e=10s");
        assertEquals(List.of("TTFT bound 800 ms: ttft=800ms, over ttft_p99<=500ms"), explicit.mergedBounds());
        assertEquals(List.of(), SloObjectives.parse("ttft_p99<=500ms").mergedBounds());
        MetricsConfig config = new MetricsConfig(TokenCounting.DEFAULT, implied.goodput(), implied);
        assertEquals(implied.mergedBounds(), config.mergedGoodputBounds());
        assertEquals(List.of(), config.withSlo(null).mergedGoodputBounds(), "no goodput, no note");
        assertEquals(3, config.judgedObjectives().size());
        assertEquals(List.of(), new MetricsConfig(TokenCounting.DEFAULT, implied.goodput()).judgedObjectives());
    }

    @Test
    void theSummarysSloSectionMatchesItsSchemaAndIsAbsentWithoutObjectives() {
        BenchmarkRun run = ImageUsageReportTest.run(); // TTFTs 100, 300, 320 ms; one of 4 failed (HTTP 400)
        SloObjectives slo = SloObjectives.parse("ttft_p50<=1s,error_rate<=10%");
        RunMetrics metrics = RunMetrics.of(run, new MetricsConfig(TokenCounting.DEFAULT, slo.goodput(), slo));
        JsonNode json = SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, metrics, "0.1.0-test",
                RunEnvironment.current())));
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), json));
        JsonNode verdict = json.get("slo");
        assertFalse(verdict.get("passed").asBoolean(), verdict::toString);
        assertFalse(verdict.get("resolved").asBoolean(), "4 requests, fewer than 30: " + verdict);
        assertEquals(4, verdict.get("requests").asInt());
        JsonNode ttft = verdict.get("objectives").get(0);
        // the failure misses the latency objective too: 100, 300, 320, +inf -> p50 (the one definition) 310 ms
        assertEquals(310.0, ttft.get("estimate").asDouble(), 1e-9, ttft::toString);
        assertTrue(ttft.get("passed").asBoolean(), ttft::toString);
        JsonNode errors = verdict.get("objectives").get(1);
        assertEquals(0.25, errors.get("estimate").asDouble(), 1e-12);
        assertFalse(errors.get("passed").asBoolean());

        JsonNode plain = SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, RunMetrics.of(run,
                MetricsConfig.DEFAULT), "0.1.0-test", RunEnvironment.current())));
        assertFalse(plain.has("slo"), "additive: absent without objectives");
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), plain));
    }
}
