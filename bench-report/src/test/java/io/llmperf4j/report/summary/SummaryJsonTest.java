package io.llmperf4j.report.summary;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.Slo;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.report.testutil.JsonSchemaValidation;
import io.llmperf4j.report.testutil.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SummaryJsonTest {

    private static final String OPENAI_KEY = "sk-proj-AbCdEf0123456789XyZabcdef";
    private static final RunEnvironment ENVIRONMENT =
            new RunEnvironment("OpenJDK 64-Bit Server VM", "Eclipse Adoptium", "17.0.12+7", "Linux", "6.1.0", "amd64", 8);
    /** What an API key or bearer credential looks like. */
    private static final Pattern KEY_LIKE = Pattern.compile("sk-[A-Za-z0-9_-]{12,}|Bearer\\s+\\S{8,}");

    static BenchmarkSettings settingsWithSecrets() {
        Map<String, Object> sampling = new LinkedHashMap<>();
        sampling.put("temperature", 0.7);
        sampling.put("max_tokens", 150);
        sampling.put("extra_headers", Map.of("Authorization", "Bearer " + OPENAI_KEY));
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("framework", "vllm");
        metadata.put("api_key", "not-shaped-like-a-key-but-named-so");
        metadata.put("note", "ran with " + OPENAI_KEY);
        return BenchmarkSettings.builder()
                .model("meta-llama/Llama-2-7b-chat-hf")
                .meanInputTokens(550)
                .stddevInputTokens(150)
                .meanOutputTokens(150)
                .stddevOutputTokens(10)
                .numConcurrentRequests(4)
                .timeoutSeconds(600)
                .maxNumCompletedRequests(12)
                .additionalSamplingParams(sampling)
                .llmApi("openai")
                .metadata(metadata)
                .endpoint("https://bench:" + OPENAI_KEY + "@llm.example.com:8443/v1?api_key=" + OPENAI_KEY
                        + "&region=eu")
                .tokenizer("llama-2 (built in)")
                .promptMode("exact")
                .seed(424242L)
                .build();
    }

    static BenchmarkRun run(BenchmarkSettings settings) {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            records.add(request(i).evenEvents((200 + 10 * i) * MS, 20 * MS, 50).e2e((200 + 10 * i + 49 * 20) * MS)
                    .usage(560, 50).client(51).build());
        }
        records.add(request(10).e2e(40 * MS).failed(FailureKind.HTTP_STATUS, 503, "Service Unavailable").build());
        records.add(request(11).evenEvents(300 * MS, 20 * MS, 3).e2e(400 * MS)
                .failed(FailureKind.CANCELLED, -1, "run ended").build());
        return new BenchmarkRun(settings, records, 1_703_136_124_250L, 1_703_136_134_750L, 10_500 * MS, 13, true);
    }

    private static String json(BenchmarkRun run, MetricsConfig config) {
        return SummaryJson.toJson(SummaryDocument.of(run, RunMetrics.of(run, config), "0.1.0-test", ENVIRONMENT));
    }

    @Test
    void statesEveryTestCondition() {
        JsonNode doc = SummaryJson.parse(json(run(settingsWithSecrets()), MetricsConfig.DEFAULT));
        assertEquals("llmperf4j.summary/3", doc.get("schema").asText());
        assertEquals("schema", doc.fieldNames().next());
        assertEquals("0.1.0-test", doc.at("/tool/version").asText());
        assertEquals("OpenJDK 64-Bit Server VM", doc.at("/environment/jvm_name").asText());
        assertEquals("17.0.12+7", doc.at("/environment/jvm_version").asText());
        assertEquals("Linux", doc.at("/environment/os_name").asText());
        assertEquals(8, doc.at("/environment/available_processors").asInt());

        JsonNode s = doc.get("settings");
        assertEquals("meta-llama/Llama-2-7b-chat-hf", s.get("model").asText());
        assertEquals("https://llm.example.com:8443/v1?api_key=[REDACTED]&region=eu", s.get("endpoint").asText());
        assertEquals("openai", s.get("llm_api").asText());
        assertEquals(550, s.get("mean_input_tokens").asInt());
        assertEquals(150, s.get("stddev_input_tokens").asInt());
        assertEquals(150, s.get("mean_output_tokens").asInt());
        assertEquals(10, s.get("stddev_output_tokens").asInt());
        assertEquals(4, s.get("num_concurrent_requests").asInt());
        assertEquals(600, s.get("timeout_s").asInt());
        assertEquals(12, s.get("max_num_completed_requests").asInt());
        assertEquals(0.7, s.at("/additional_sampling_params/temperature").asDouble());
        assertEquals(150, s.at("/additional_sampling_params/max_tokens").asInt());
        assertEquals("vllm", s.at("/metadata/framework").asText());
        assertEquals("llama-2 (built in)", s.get("tokenizer").asText());
        assertEquals("exact", s.get("prompt_mode").asText());
        assertEquals(424242L, s.get("seed").asLong());
        assertEquals(15, s.size(), "every BenchmarkSettings component");

        JsonNode run = doc.get("run");
        assertEquals("2023-12-21T05:22:04.250Z", run.get("start_time").asText());
        assertEquals("2023-12-21T05:22:14.750Z", run.get("end_time").asText());
        assertEquals(10.5, run.get("duration_s").asDouble());
        assertTrue(run.get("timed_out").asBoolean());
        assertEquals(13, run.get("requests_sent").asInt());
        assertEquals(12, run.get("requests_recorded").asInt());
        assertEquals(10, run.get("requests_succeeded").asInt());
        assertEquals(2, run.get("requests_failed").asInt());
    }

    @Test
    void metricsCarryTheirUnitsAndTokenSources() {
        JsonNode doc = SummaryJson.parse(json(run(settingsWithSecrets()), MetricsConfig.DEFAULT));
        JsonNode ttft = doc.at("/metrics/ttft_ms");
        assertEquals(10, ttft.get("count").asInt());
        assertEquals(200.0, ttft.get("min").asDouble());
        assertEquals(290.0, ttft.get("max").asDouble());
        assertEquals(245.0, ttft.get("mean").asDouble(), 1e-9);
        assertEquals(20.0, doc.at("/metrics/tpot_ms/p50").asDouble(), 20.0 * 1e-3);
        assertEquals(490, doc.at("/metrics/itl_ms/count").asInt());
        assertEquals(20.0, doc.at("/metrics/itl_ms/max").asDouble());
        assertTrue(doc.at("/metrics/itl_ms/stddev").isNumber());
        assertEquals(50.0, doc.at("/metrics/output_tokens/p99").asDouble());
        assertEquals(560.0, doc.at("/metrics/input_tokens/mean").asDouble());
        assertTrue(doc.at("/metrics/request_output_tokens_per_s/p50").isNumber());
        assertEquals(List.of("ttft_ms", "ttfrt_ms", "tpot_ms", "itl_ms", "itl_per_token_ms", "e2e_latency_ms",
                "request_output_tokens_per_s", "output_tokens", "input_tokens"), fieldNames(doc.get("metrics")));
        assertEquals(0, doc.at("/metrics/ttfrt_ms/count").asInt(), "no reasoning streamed");
        assertTrue(doc.at("/metrics/ttfrt_ms/p50").isNull());

        assertEquals(500.0 / 10.5, doc.at("/throughput/output_tokens_per_s").asDouble(), 1e-9);
        assertEquals(10 / 10.5, doc.at("/throughput/requests_per_s").asDouble(), 1e-12);
        assertEquals(500, doc.at("/throughput/total_output_tokens").asLong());

        JsonNode tokens = doc.get("token_counting");
        assertEquals("server_usage", tokens.get("output_token_source").asText());
        assertEquals(10, tokens.at("/output_token_source_counts/server_usage").asInt());
        assertEquals(1, tokens.get("client_special_tokens_subtracted").asInt());
        assertEquals(10, tokens.at("/output_token_discrepancy/requests_compared").asInt());
        assertEquals(0.0, tokens.at("/output_token_discrepancy/percent_differing").asDouble());

        assertEquals(2, doc.at("/errors/count").asInt());
        assertEquals(1, doc.at("/errors/by_kind/HTTP_STATUS").asInt());
        assertEquals(1, doc.at("/errors/by_kind/CANCELLED").asInt());
        assertEquals(1, doc.at("/errors/by_code/503").asInt());
        assertEquals(1, doc.at("/errors/by_code/-1").asInt());
        assertTrue(doc.get("goodput").isNull());
        assertEquals(List.of("REQUESTS_FAILED", "REQUESTS_CANCELLED"),
                doc.get("warnings").findValuesAsText("code"));
    }

    @Test
    void goodputAppearsWithAnSlo() {
        JsonNode doc = SummaryJson.parse(json(run(settingsWithSecrets()),
                MetricsConfig.DEFAULT.withSlo(Slo.parse("ttft:250ms,tpot:25ms"))));
        JsonNode goodput = doc.get("goodput");
        assertEquals(250.0, goodput.at("/slo/ttft_ms").asDouble());
        assertEquals(25.0, goodput.at("/slo/tpot_ms").asDouble());
        assertTrue(goodput.at("/slo/e2e_latency_ms").isNull());
        assertEquals(6, goodput.get("good_requests").asInt()); // TTFT 200..250 ms
        assertEquals(12, goodput.get("recorded_requests").asInt());
        assertEquals(12, goodput.get("judged_requests").asInt());
        assertEquals(0.5, goodput.get("good_fraction").asDouble());
        assertEquals(6 / 10.5, goodput.get("good_requests_per_s").asDouble(), 1e-12);
        assertEquals(4, goodput.at("/violations/ttft").asInt());
    }

    @Test
    void noApiKeyLookingStringSurvives() {
        String json = json(run(settingsWithSecrets()), MetricsConfig.DEFAULT);
        assertFalse(KEY_LIKE.matcher(json).find(), json);
        assertFalse(json.contains(OPENAI_KEY));
        assertFalse(json.contains("bench:"), "user-info is stripped");
        assertFalse(json.contains("not-shaped-like-a-key-but-named-so"), "secret-named metadata is blanked");
        JsonNode doc = SummaryJson.parse(json);
        assertEquals("[REDACTED]", doc.at("/settings/metadata/api_key").asText());
        assertEquals("ran with [REDACTED]", doc.at("/settings/metadata/note").asText());
        assertEquals("[REDACTED]", doc.at("/settings/additional_sampling_params/extra_headers/Authorization").asText());
    }

    @Test
    void writtenSummariesValidateAgainstTheSchema() {
        JsonNode schema = SummaryJson.parse(SummaryJson.schemaText());
        BenchmarkRun withSecrets = run(settingsWithSecrets());
        for (String json : List.of(
                json(withSecrets, MetricsConfig.DEFAULT),
                json(withSecrets, MetricsConfig.DEFAULT.withSlo(Slo.parse("e2e:1s"))),
                json(Records.run(0, false, List.of()), MetricsConfig.DEFAULT),
                json(Records.run(1_000 * MS, false, List.of(request(0).e2e(5 * MS)
                        .failed(FailureKind.CONNECT_FAILED, -1, "refused").build())), MetricsConfig.DEFAULT))) {
            assertEquals(List.of(), JsonSchemaValidation.violations(schema, SummaryJson.parse(json)), json);
        }
    }

    @Test
    void aDistributedRunNamesItsWorkersAndClockOffsetsAndValidates() {
        BenchmarkRun run = run(settingsWithSecrets());
        SummaryDocument doc = SummaryDocument.of(run, RunMetrics.of(run, MetricsConfig.DEFAULT), "0.1.0-test",
                ENVIRONMENT).withDistributed(new SummaryDocument.DistributedJson("bench", "10.0.0.1:5701", List.of(
                new SummaryDocument.WorkerJson("10.0.0.2:5701", "closed loop, concurrency 2, 6 requests", 6, 6, 6, 0, 0,
                        -0.25, 0.4, 0.012, null),
                new SummaryDocument.WorkerJson("10.0.0.3:5701", "closed loop, concurrency 2, 6 requests", 6, 6, 3, 3, 0,
                        1.5, 0.3, null, "worker 10.0.0.3:5701 left the cluster mid-run"))));
        JsonNode json = SummaryJson.parse(SummaryJson.toJson(doc));
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), json));
        assertEquals(-0.25, json.at("/distributed/workers/0/clock_offset_ms").asDouble());
        assertEquals(3, json.at("/distributed/workers/1/requests_lost").asInt());
        assertEquals(0, json.at("/distributed/workers/1/requests_not_sent").asInt(-1));
        assertTrue(json.at("/distributed/workers/1/start_lag_ms").isNull());
        assertTrue(SummaryJson.parse(json(run, MetricsConfig.DEFAULT)).get("distributed").isNull(),
                "a single machine's summary has the key, null");
    }

    @Test
    void clientOverheadAndConnectionsAreSummarizedAndABusyClientIsWarnedAbout() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            RequestRecord r = request(i).evenEvents(200 * MS, 20 * MS, 5).e2e(300 * MS).usage(10, 5).client(5).build();
            long connect = i < 4 ? (i + 1) * MS : RequestRecord.NEVER; // 4 new connections: 1, 2, 3, 4 ms
            records.add(new RequestRecord(r.promptIndex(), r.clientRequestId(), r.serverResponseId(),
                    r.startEpochMicros(), r.ttftNanos(), r.lastContentNanos(), r.e2eNanos(), r.dataEventCount(),
                    r.contentEventNanos(), r.generatedText(), r.numberInputTokens(), r.maxTokens(), r.outputTokens(),
                    r.usagePromptTokens(), r.usageCompletionTokens(), r.finishReason(), r.failure(), null, null,
                    RequestRecord.NEVER, connect, null));
        }
        // 25 ms late at p99: above the 1.6 ms threshold, and 12.5 % of the 200 ms TTFT p50, 125 % of the 20 ms gaps
        ClientOverhead busy = new ClientOverhead(2_000 * MS, 2, 2, 400, 50_000, 25 * MS, 40 * MS, 0.4, 0.85,
                12 * MS, 3, 0.95, 400_000, Double.NaN);
        BenchmarkRun run = new BenchmarkRun(Records.settings(), records, 0, 2_000, 2_000 * MS, 12, false, busy);
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        assertTrue(metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), metrics.warnings().toString());
        String warning = metrics.warnings().get(metrics.warnings().size() - 1).message();
        assertEquals("The client may have limited this run: its event loops ran late (lag p99 25.00 ms, max 40.00 ms, "
                + "above the 1.60 ms threshold: 4x its idle p99 of 0.40 ms measured before the run), so its stamps of "
                + "first tokens and chunks were up to 25.00 ms late at p99: 13% of TTFT p50 (200.0 ms) and 125% of ITL "
                + "p50 (20.0 ms), a material part above 10% of TTFT p50 or 50% of ITL p50, while it was busy (process "
                + "CPU 95% of 2 cores, busiest I/O thread on a CPU 85% of the time), so latencies include the client's "
                + "own delays and throughput may be its limit; run it on a machine of its own or with more cores, "
                + "lower the load, or measure its error floor with 'llmperf4j calibrate'.", warning);

        String json = SummaryJson.toJson(SummaryDocument.of(run, metrics, "0.1.0-test", ENVIRONMENT));
        JsonNode doc = SummaryJson.parse(json);
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), doc), json);
        assertEquals(4, doc.at("/connections/new_connections").asInt());
        assertEquals(8, doc.at("/connections/requests_without_new_connection").asInt());
        assertEquals(2.5, doc.at("/connections/connect_p50_ms").asDouble(), 1e-9); // numpy linear over 1, 2, 3, 4 ms
        assertEquals(3.97, doc.at("/connections/connect_p99_ms").asDouble(), 1e-9);
        assertEquals(25.0, doc.at("/client_overhead/event_loop_lag_p99_ms").asDouble(), 1e-9);
        assertEquals(0.95, doc.at("/client_overhead/process_cpu_share").asDouble(), 1e-9);
        assertEquals(12.0, doc.at("/client_overhead/gc_pause_ms").asDouble(), 1e-9);
        assertTrue(doc.at("/client_overhead/likely_bottleneck").asBoolean());
        assertEquals(0.4, doc.at("/client_overhead/idle_event_loop_lag_p99_ms").asDouble(), 1e-9);
        assertEquals(1.6, doc.at("/client_overhead/event_loop_lag_threshold_ms").asDouble(), 1e-9);

        String console = SummaryConsoleReport.render(run, metrics);
        assertTrue(console.contains("Connections: 4 new (connect p50 2.500 ms, p99 3.970 ms), 8 requests without a "
                + "new connection"), console);
        assertTrue(console.contains("Client overhead: event-loop lag p50 0.050 ms, p99 25.000 ms, max 40.000 ms; I/O "
                + "threads busy 40.0% (busiest 85.0%); process CPU 95.0% of 2 cores; GC 3 pauses, 12.0 ms"), console);
        assertTrue(console.contains("\n  [CLIENT_BOTTLENECK] The client may have limited this run: "), console);

        // as busy, 2.5 ms late: over the threshold, but 1 % of TTFT p50 and 13 % of ITL p50 distort neither
        ClientOverhead slightlyLate = new ClientOverhead(2_000 * MS, 2, 2, 400, 50_000, 2_500_000, 9 * MS, 0.4, 0.85,
                12 * MS, 3, 0.95, 400_000, Double.NaN);
        BenchmarkRun lateRun = new BenchmarkRun(Records.settings(), records, 0, 2_000, 2_000 * MS, 12, false,
                slightlyLate);
        RunMetrics lateMetrics = RunMetrics.of(lateRun, MetricsConfig.DEFAULT);
        assertFalse(lateMetrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), lateMetrics.warnings().toString());
        JsonNode lateDoc = SummaryJson.parse(json(lateRun, MetricsConfig.DEFAULT));
        assertEquals(1.6, lateDoc.at("/client_overhead/event_loop_lag_threshold_ms").asDouble(), 1e-9);
        assertFalse(lateDoc.at("/client_overhead/likely_bottleneck").asBoolean(), "the flag follows the warning");
        assertFalse(SummaryConsoleReport.render(lateRun, lateMetrics).contains("The client"), "no sentence");
    }

    @Test
    void lateEventLoopsInAnIdleClientWarnWhenTheLagIsAMaterialPartOfTheLatenciesButNotBelowIt() {
        // a crowded machine: 112.7 ms late at p99 while the client used 5 % of the machine, beside a 245 ms TTFT p50
        ClientOverhead crowdedClient = new ClientOverhead(2_000 * MS, 2, 2, 400, 90_000, 112_700_000, 350 * MS, 0.01,
                0.02, 0, 0, 0.048, 300_000, 0.3);
        // 1.62 ms late, over the 1.2 ms threshold, but under 1 % of that TTFT p50 and 8 % of the 20 ms gaps
        ClientOverhead slightlyLate = new ClientOverhead(2_000 * MS, 2, 2, 400, 90_000, 1_620_000, 35 * MS, 0.01, 0.02,
                0, 0, 0.048, 300_000, 0.3);
        // a busy client, 6 ms late on a machine whose idle loops are 2 ms late: under the 8 ms threshold
        ClientOverhead noisyMachine = new ClientOverhead(2_000 * MS, 2, 2, 400, 900_000, 6 * MS, 35 * MS, 0.6, 0.7,
                0, 0, 0.7, 2 * MS, 0.9);
        BenchmarkRun base = run(Records.settings());
        BenchmarkRun crowded = withOverhead(base, crowdedClient);
        RunMetrics crowdedMetrics = RunMetrics.of(crowded, MetricsConfig.DEFAULT);
        assertTrue(crowdedMetrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), crowdedMetrics.warnings().toString());
        String warning = crowdedMetrics.warnings().get(crowdedMetrics.warnings().size() - 1).message();
        assertEquals("The client's delays are a material part of this run's latencies: its event loops ran late (lag "
                + "p99 112.70 ms, max 350.00 ms, above the 1.20 ms threshold: 4x its idle p99 of 0.30 ms measured "
                + "before the run), so its stamps of first tokens and chunks were up to 112.70 ms late at p99: 46% of "
                + "TTFT p50 (245.0 ms) and 564% of ITL p50 (20.0 ms), a material part above 10% of TTFT p50 or 50% of "
                + "ITL p50, though it was not busy (process CPU 5% of 2 cores, busiest I/O thread on a CPU 2% of the "
                + "time): other work kept it from the CPUs (other processes on this machine, or this process's own JIT "
                + "compilers and garbage collector), so TTFT and ITL include its delays, not only the server's (an ITL "
                + "p50 near 0 is a stall then a catch-up); run it on a quieter machine or with more cores, or measure "
                + "its error floor with 'llmperf4j calibrate'.", warning);
        assertTrue(SummaryJson.parse(json(crowded, MetricsConfig.DEFAULT)).at("/client_overhead/likely_bottleneck")
                .asBoolean());
        // the embedded simulated server shares the process: the sentence names it, and its CPU in the process's
        RunMetrics embedded = RunMetrics.of(crowded, MetricsConfig.DEFAULT.withServerInProcess(true));
        String embeddedWarning = embedded.warnings().get(embedded.warnings().size() - 1).message();
        assertTrue(embeddedWarning.contains("(process CPU 5% of 2 cores, the embedded simulated server's included, "
                + "busiest I/O thread on a CPU 2% of the time): other work kept it from the CPUs (the embedded "
                + "simulated server, which runs in this process on the same CPUs, this process's JIT compilers and "
                + "garbage collector, or other processes)"), embeddedWarning);
        assertTrue(embeddedWarning.endsWith("run it on a quieter machine or with more cores, benchmark a server "
                + "outside this process (OPENAI_API_BASE), or measure its error floor with 'llmperf4j calibrate'."),
                embeddedWarning);

        BenchmarkRun late = withOverhead(base, slightlyLate);
        RunMetrics lateMetrics = RunMetrics.of(late, MetricsConfig.DEFAULT);
        assertFalse(lateMetrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), lateMetrics.warnings().toString());
        JsonNode lateDoc = SummaryJson.parse(json(late, MetricsConfig.DEFAULT));
        assertEquals(1.2, lateDoc.at("/client_overhead/event_loop_lag_threshold_ms").asDouble(), 1e-9);
        assertFalse(lateDoc.at("/client_overhead/likely_bottleneck").asBoolean());

        BenchmarkRun noisy = withOverhead(base, noisyMachine);
        RunMetrics metrics = RunMetrics.of(noisy, MetricsConfig.DEFAULT);
        assertFalse(metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), metrics.warnings().toString());
        JsonNode doc = SummaryJson.parse(json(noisy, MetricsConfig.DEFAULT));
        assertEquals(2.0, doc.at("/client_overhead/idle_event_loop_lag_p99_ms").asDouble(), 1e-9);
        assertEquals(8.0, doc.at("/client_overhead/event_loop_lag_threshold_ms").asDouble(), 1e-9);
        assertFalse(doc.at("/client_overhead/likely_bottleneck").asBoolean());
    }

    private static BenchmarkRun withOverhead(BenchmarkRun base, ClientOverhead overhead) {
        return new BenchmarkRun(base.settings(), base.records(), base.startEpochMillis(), base.endEpochMillis(),
                base.durationNanos(), base.requestsSent(), base.timedOut(), overhead);
    }

    @Test
    void aQuietClientRaisesNoWarningAndAnUnmeasuredOneIsNull() {
        ClientOverhead quiet = new ClientOverhead(2_000 * MS, 2, 2, 400, 20_000, 200_000, MS, 0.1, 0.2, 0, 0, 0.3);
        BenchmarkRun base = run(Records.settings());
        BenchmarkRun measured = new BenchmarkRun(base.settings(), base.records(), base.startEpochMillis(),
                base.endEpochMillis(), base.durationNanos(), base.requestsSent(), base.timedOut(), quiet);
        RunMetrics metrics = RunMetrics.of(measured, MetricsConfig.DEFAULT);
        assertFalse(metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), metrics.warnings().toString());
        JsonNode doc = SummaryJson.parse(json(measured, MetricsConfig.DEFAULT));
        assertFalse(doc.at("/client_overhead/likely_bottleneck").asBoolean());
        assertTrue(SummaryJson.parse(json(base, MetricsConfig.DEFAULT)).get("client_overhead").isNull());
        assertEquals(0, SummaryJson.parse(json(base, MetricsConfig.DEFAULT)).at("/connections/new_connections").asInt());
    }

    @Test
    void version3RequiresPhasesAndPreconnectsAndVersion2KeysStayRequired() {
        JsonNode v3 = SummaryJson.parse(SummaryJson.schemaText());
        assertEquals("llmperf4j.summary/3", v3.at("/properties/schema/const").asText());
        assertEquals(SummaryJson.SCHEMA, v3.at("/properties/schema/const").asText());
        for (String key : List.of("connections", "phases", "client_overhead", "distributed")) {
            ObjectNode doc = (ObjectNode) SummaryJson.parse(json(run(settingsWithSecrets()), MetricsConfig.DEFAULT));
            doc.remove(key);
            assertEquals(List.of("/: required property '" + key + "' not found"),
                    JsonSchemaValidation.violations(v3, doc));
        }
        for (String key : List.of("ttfrt_ms", "itl_per_token_ms")) {
            ObjectNode doc = (ObjectNode) SummaryJson.parse(json(run(settingsWithSecrets()), MetricsConfig.DEFAULT));
            ((ObjectNode) doc.get("metrics")).remove(key);
            assertEquals(List.of("/metrics: required property '" + key + "' not found"),
                    JsonSchemaValidation.violations(v3, doc));
        }
        ObjectNode doc = (ObjectNode) SummaryJson.parse(json(run(settingsWithSecrets()), MetricsConfig.DEFAULT));
        ((ObjectNode) doc.get("connections")).remove("preconnected");
        assertEquals(List.of("/connections: required property 'preconnected' not found"),
                JsonSchemaValidation.violations(v3, doc));
    }

    @Test
    void version1And2FilesOfEveryReleaseValidateAgainstTheirSchemas() {
        JsonNode v1 = SummaryJson.parse(SummaryJson.schemaText(SummaryJson.SCHEMA_1));
        JsonNode v2 = SummaryJson.parse(SummaryJson.schemaText(SummaryJson.SCHEMA_2));
        assertEquals("llmperf4j.summary/1", v1.at("/properties/schema/const").asText());
        assertEquals("llmperf4j.summary/2", v2.at("/properties/schema/const").asText());
        JsonNode current = SummaryJson.parse(json(run(settingsWithSecrets()), MetricsConfig.DEFAULT));
        // a /2 file: today's keys without phases and pre-connects, HdrHistogram's digits
        ObjectNode second = asVersion2(current);
        assertEquals(List.of(), JsonSchemaValidation.violations(v2, second));
        // a late /1 file: the /2 keys under the old name
        ObjectNode late = second.deepCopy();
        late.put("schema", SummaryJson.SCHEMA_1);
        assertEquals(List.of(), JsonSchemaValidation.violations(v1, late));
        // a first-release /1 file: without the sections added later
        ObjectNode first = asFirstVersion1(late);
        assertEquals(List.of(), JsonSchemaValidation.violations(v1, first));
        // none passes as /3, nor a /3 file as /2
        JsonNode v3 = SummaryJson.parse(SummaryJson.schemaText());
        assertTrue(JsonSchemaValidation.violations(v3, second).contains(
                "/schema: must be the constant value 'llmperf4j.summary/3'"));
        assertTrue(JsonSchemaValidation.violations(v3, late).contains(
                "/schema: must be the constant value 'llmperf4j.summary/3'"));
        assertTrue(JsonSchemaValidation.violations(v2, current).contains(
                "/schema: must be the constant value 'llmperf4j.summary/2'"));
        assertEquals(List.of(SummaryJson.SCHEMA_1, SummaryJson.SCHEMA_2, SummaryJson.SCHEMA),
                SummaryJson.READABLE_SCHEMAS);
        assertThrows(IllegalArgumentException.class, () -> SummaryJson.schemaText("llmperf4j.summary/4"));
    }

    /** A copy of {@code doc} shaped as the first llmperf4j.summary/1 files: without the keys added later. */
    private static ObjectNode asFirstVersion1(JsonNode doc) {
        ObjectNode first = doc.deepCopy();
        first.put("schema", SummaryJson.SCHEMA_1);
        first.remove(List.of("connections", "client_overhead", "distributed"));
        ((ObjectNode) first.get("metrics")).remove(List.of("ttfrt_ms", "itl_per_token_ms"));
        return first;
    }

    /** A copy of a current document shaped as a llmperf4j.summary/2 file. */
    static ObjectNode asVersion2(JsonNode doc) {
        ObjectNode second = doc.deepCopy();
        second.put("schema", SummaryJson.SCHEMA_2);
        second.remove("phases");
        ((ObjectNode) second.get("connections")).remove(List.of("preconnected", "preconnect_p50_ms",
                "preconnect_p99_ms", "preconnect_max_ms"));
        ((ObjectNode) second.get("throughput")).remove(List.of("output_tokens_delivered",
                "output_tokens_delivered_by_failed", "output_tokens_per_s_delivered"));
        ObjectNode statistics = (ObjectNode) second.get("statistics");
        statistics.put("percentile_method", "HdrHistogram, nearest rank at 3 significant digits, clamped to the "
                + "exact min and max");
        statistics.put("significant_value_digits", 3);
        statistics.put("lowest_discernible_ns", 1000);
        return second;
    }

    @Test
    void theSchemaCheckCatchesDrift() {
        JsonNode schema = SummaryJson.parse(SummaryJson.schemaText());
        ObjectNode doc = (ObjectNode) SummaryJson.parse(json(run(settingsWithSecrets()), MetricsConfig.DEFAULT));
        ((ObjectNode) doc.get("run")).remove("duration_s");
        ((ObjectNode) doc.at("/metrics/ttft_ms")).put("p50", "fast");
        doc.put("surprise", 1);
        assertEquals(List.of(
                "/: property 'surprise' is not defined in the schema and the schema does not allow additional "
                        + "properties",
                "/run: required property 'duration_s' not found",
                "/metrics/ttft_ms/p50: string found, [number, null] expected"),
                sorted(JsonSchemaValidation.violations(schema, doc), "/:", "/run", "/metrics"));
    }

    @Test
    void undefinedNumbersAreNullNotZeroOrNaN() {
        String json = json(Records.run(0, false, List.of()), MetricsConfig.DEFAULT);
        assertFalse(json.contains("NaN"));
        JsonNode doc = SummaryJson.parse(json);
        assertEquals(0, doc.at("/metrics/ttft_ms/count").asInt());
        assertTrue(doc.at("/metrics/ttft_ms/p50").isNull());
        assertTrue(doc.at("/throughput/output_tokens_per_s").isNull());
        assertTrue(doc.at("/errors/rate").isNull());
        assertTrue(doc.at("/token_counting/output_token_discrepancy/max_absolute_difference").isNull());
        assertEquals("none", doc.at("/token_counting/output_token_source").asText());
    }

    @Test
    void writesBesideLlmperfsFilesAndReadsBack(@TempDir Path dir) throws IOException {
        BenchmarkRun run = run(settingsWithSecrets());
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        Path file = SummaryJson.write(run, metrics, "0.1.0-test", ENVIRONMENT, dir.resolve("out"));
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150_llmperf4j_summary.json", file.getFileName().toString());
        String text = Files.readString(file);
        assertTrue(text.startsWith("{\n  \"schema\": \"llmperf4j.summary/3\",\n"), text);
        assertTrue(text.endsWith("}\n"));
        assertEquals(SummaryJson.parse(text), SummaryJson.read(file));
    }

    @Test
    void endpointRedaction() {
        assertEquals("http://localhost:8000/v1", Redaction.endpoint("http://localhost:8000/v1"));
        assertEquals("https://host/v1", Redaction.endpoint("https://user:pw@host/v1"));
        assertEquals("http://[::1]:8000/v1?token=[REDACTED]&x=1",
                Redaction.endpoint("http://u@[::1]:8000/v1?token=abc&x=1"));
        assertEquals("http://my_host:8000/v1", Redaction.endpoint("http://me:pw@my_host:8000/v1"));
        assertEquals("not a url [REDACTED]", Redaction.endpoint("not a url " + OPENAI_KEY));
        assertEquals(null, Redaction.endpoint(null));
        assertEquals("https://fn.azurewebsites.net/api/chat?code=[REDACTED]",
                Redaction.endpoint("https://fn.azurewebsites.net/api/chat?code=abc123"));
        assertTrue(Redaction.isSecretName("x-api-key"));
        assertFalse(Redaction.isSecretName("max_tokens"));
    }

    @Test
    void currentEnvironmentIsThisJvm() {
        RunEnvironment env = RunEnvironment.current();
        assertEquals(System.getProperty("java.vm.name"), env.jvmName());
        assertEquals(System.getProperty("os.arch"), env.osArch());
        assertEquals(Runtime.getRuntime().availableProcessors(), env.availableProcessors());
        assertTrue(env.jvmVersion().startsWith(Runtime.version().feature() + ""), env.jvmVersion());
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<String> sorted(List<String> messages, String... prefixOrder) {
        List<String> out = new ArrayList<>();
        for (String prefix : prefixOrder) {
            messages.stream().filter(m -> m.startsWith(prefix)).forEach(out::add);
        }
        assertEquals(messages.size(), out.size(), messages.toString());
        return out;
    }
}
