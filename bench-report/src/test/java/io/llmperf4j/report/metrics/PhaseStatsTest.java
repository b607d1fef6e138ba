package io.llmperf4j.report.metrics;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryConsoleReport;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.report.testutil.JsonSchemaValidation;
import io.llmperf4j.report.testutil.Records;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PhaseStatsTest {

    private static final RunEnvironment ENVIRONMENT = new RunEnvironment("OpenJDK 64-Bit Server VM", "Eclipse Adoptium",
            "17.0.12+7", "Linux", "6.8.0", "amd64", 8);

    /** Request i: ready after 0.1·i ms, written 0.05 ms later, headers at 50 + i ms, first content 1 ms later. */
    private static RequestRecord timed(int i) {
        RequestRecord r = request(i).evenEvents((51 + i) * MS, 10 * MS, 5).e2e((100 + i) * MS).usage(10, 5).build();
        long ready = i * 100_000L;
        return r.withPhases(new RequestPhases(ready, -1, ready + 50_000L, (50 + i) * MS));
    }

    @Test
    void ttftTermsAddUpPerRequestAndTheirMeansAddUpToTheMeanTtft() {
        RequestPhaseTimes one = RequestPhaseTimes.of(timed(4));
        assertTrue(one.ttftTimed());
        assertEquals(Boolean.FALSE, one.newConnection());
        assertEquals(400_000L, one.nanos(Phase.CONNECTION_WAIT).getAsLong());
        assertEquals(0L, one.nanos(Phase.CONNECT).getAsLong());
        assertEquals(50_000L, one.nanos(Phase.REQUEST_WRITE).getAsLong());
        assertEquals(54 * MS - 450_000L, one.nanos(Phase.RESPONSE_HEADERS).getAsLong());
        assertEquals(1 * MS, one.nanos(Phase.FIRST_CONTENT).getAsLong());
        assertEquals(40 * MS, one.nanos(Phase.CONTENT).getAsLong());
        assertEquals(9 * MS, one.nanos(Phase.TAIL).getAsLong());
        long sum = 0;
        for (Phase p : Phase.values()) if (p.partOfTtft()) sum += one.nanos(p).getAsLong();
        assertEquals(55 * MS, sum);

        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) records.add(timed(i));
        records.add(request(10).evenEvents(60 * MS, 10 * MS, 5).e2e(120 * MS).usage(10, 5).build()); // no phases
        records.add(timed(11).withPhases(new RequestPhases(0, -1, 50_000L, 10 * MS)).withWorkerId(null));
        RequestRecord failed = request(12).failed(FailureKind.HTTP_STATUS, 500, "boom").e2e(5 * MS).build()
                .withPhases(new RequestPhases(0, -1, 40_000L, 5 * MS));
        records.add(failed);
        BenchmarkRun run = Records.run(1_000 * MS, false, records)
                .withPreconnectNanos(new long[] {2 * MS, 4 * MS, 3 * MS});
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        PhaseStats stats = PhaseStats.of(metrics.requests());
        assertEquals(11, stats.timedRequests()); // successes with every TTFT milestone; the failure is left out
        double terms = stats.ttftBreakdown().values().stream().mapToDouble(Double::doubleValue).sum();
        assertEquals(stats.ttftMeanNanos(), terms, 1e-6);
        assertEquals(11, stats.stats(Phase.REQUEST_WRITE).count());
        assertEquals(50_000.0, stats.stats(Phase.REQUEST_WRITE).p50());
        assertEquals(0, stats.stats(Phase.CONNECT).count()); // nobody opened a connection inside the clock
        assertEquals(0, stats.stats(Phase.TLS).count());

        JsonNode doc = SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, metrics, "t", ENVIRONMENT)));
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), doc));
        assertEquals(11, doc.at("/phases/requests_timed").asInt());
        assertEquals(0.05, doc.at("/phases/request_write_ms/p50").asDouble(), 1e-12);
        assertEquals(11, doc.at("/phases/first_content_ms/count").asInt());
        JsonNode breakdown = doc.at("/phases/ttft_breakdown_mean_ms");
        assertEquals(breakdown.get("ttft").asDouble(), breakdown.get("connection_wait").asDouble()
                + breakdown.get("connect").asDouble() + breakdown.get("request_write").asDouble()
                + breakdown.get("response_headers").asDouble() + breakdown.get("first_content").asDouble(), 1e-9);
        assertTrue(doc.at("/phases/tls_ms/p50").isNull());
        assertEquals(3, doc.at("/connections/preconnected").asInt());
        assertEquals(3.0, doc.at("/connections/preconnect_p50_ms").asDouble(), 1e-12);
        assertEquals(4.0, doc.at("/connections/preconnect_max_ms").asDouble(), 1e-12);
        assertEquals(0, doc.at("/connections/new_connections").asInt());

        String console = SummaryConsoleReport.render(run, metrics);
        String line = console.lines().filter(l -> l.startsWith("TTFT mean ")).findFirst().orElseThrow();
        assertTrue(line.matches("TTFT mean [0-9.]+ ms = wait [0-9.]+ \\+ connect 0\\.000 \\+ write 0\\.050 "
                + "\\+ server [0-9.]+ \\+ first content [0-9.]+ \\(11 requests with every phase timed; p50s in "
                + "the summary's phases\\)"), line);
        assertTrue(console.contains("Pre-connected: 3 connections opened before the clock (connect p50 3.000 ms, "
                + "p99 3.980 ms, max 4.000 ms), outside every TTFT\n"), console);
    }

    @Test
    void aRunWithoutPhasesHasNoBreakdownLineAndANullBreakdown() {
        List<RequestRecord> records = List.of(request(0).evenEvents(60 * MS, 10 * MS, 5).e2e(120 * MS).build());
        BenchmarkRun run = Records.run(1_000 * MS, false, records);
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        assertFalse(SummaryConsoleReport.render(run, metrics).contains("TTFT mean"));
        assertFalse(SummaryConsoleReport.render(run, metrics).contains("Pre-connected"));
        JsonNode doc = SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, metrics, "t", ENVIRONMENT)));
        assertEquals(0, doc.at("/phases/requests_timed").asInt());
        assertTrue(doc.at("/phases/ttft_breakdown_mean_ms").isNull());
        assertEquals(0, doc.at("/connections/preconnected").asInt());
        assertNull(RequestPhaseTimes.of(records.get(0)).newConnection());
    }
}
