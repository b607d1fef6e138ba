package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The published JSON Schema holds for what the real command writes: runs against the simulator that between them
 * write every optional section (server metrics, sessions with turns not sent, images, an SLO verdict, an open loop
 * behind its schedule, sweep levels, failed requests), each {@code *_llmperf4j_summary.json} validated with a full
 * draft 2020-12 validator; and each summary schema the release ships is itself a valid 2020-12 schema.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SummarySchemaConformanceTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final String SCHEMAS = "/io/llmperf4j/report/";

    /** ~120 ms a request (20 ms to the first token, 20 tokens of 5 ms); every 7th generation answered 500. */
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(20))
            .interTokenDelay(Duration.ofMillis(5)).faultPlan(FaultPlan.sequence(FaultKind.NONE, FaultKind.NONE,
                    FaultKind.NONE, FaultKind.NONE, FaultKind.NONE, FaultKind.NONE, FaultKind.HTTP_500)));

    @Test
    void everySummaryTheCommandWritesValidatesAgainstThePublishedSchema(@TempDir Path tmp) throws IOException {
        // sessions of 2 turns with an image each, server metrics scraped often, an SLO, a failure among 8 requests
        run(tmp.resolve("sessions"), "--turns", "fixed:2", "--think-time", "fixed:10", "--images-per-request", "1",
                "--image-size", "64x64", "--server-metrics-interval", "0.1", "--slo", "ttft_p99<=20s",
                "--num-concurrent-requests", "2", "--max-num-completed-requests", "8");
        // a closed loop of sessions its --timeout cuts: turns not sent
        run(tmp.resolve("cut"), "--turns", "fixed:3", "--think-time", "fixed:30000", "--num-concurrent-requests", "2",
                "--max-num-completed-requests", "6", "--timeout", "1");
        // an open loop one request in flight cannot keep up with (under 10 req/s carried, 40 offered), and whose
        // 500s count as arrivals not served: behind even from its actual sends, so the cap is not all (kept_up no)
        run(tmp.resolve("open"), "--request-rate", "40", "--arrival", "constant", "--max-concurrency", "1",
                "--max-num-completed-requests", "12");
        // sweep levels, each with a summary of its own
        run(tmp.resolve("sweep"), "--concurrency-sweep", "1,2", "--sleep-between", "0",
                "--max-num-completed-requests", "6", "--slo", "ttft_p90<=20s");

        Schema schema = REGISTRY.getSchema(JSON.readTree(SummaryJson.schemaText()));
        List<Path> summaries;
        try (Stream<Path> files = Files.walk(tmp)) {
            summaries = files.filter(p -> p.toString().endsWith("_llmperf4j_summary.json")).sorted().toList();
        }
        assertTrue(summaries.size() >= 5, summaries::toString);
        Map<String, List<String>> invalid = new TreeMap<>();
        List<JsonNode> documents = new ArrayList<>();
        for (Path file : summaries) {
            JsonNode document = JSON.readTree(file.toFile());
            documents.add(document);
            List<String> errors = schema.validate(document).stream()
                    .map(e -> e.getInstanceLocation() + ": " + e.getMessage()).toList();
            if (!errors.isEmpty()) invalid.put(tmp.relativize(file).toString(), errors);
        }
        assertEquals(Map.of(), invalid);

        // the runs did write the keys this test is for
        for (String pointer : List.of("/server/scrapes_inside_window", "/sessions/turns_not_sent", "/images",
                "/slo", "/goodput/slo", "/errors/by_code/500")) {
            assertTrue(documents.stream().anyMatch(d -> !d.at(pointer).isMissingNode() && !d.at(pointer).isNull()),
                    "no summary has " + pointer);
        }
        assertTrue(documents.stream().anyMatch(d -> RunFolder.warning(d, "BEHIND_SCHEDULE") != null
                && "no".equals(d.path("kept_up").asText())), "no summary warns BEHIND_SCHEDULE with kept_up no");
    }

    @Test
    void everyShippedSummarySchemaIsAValidDraft202012Schema() throws IOException {
        Schema metaSchema = REGISTRY.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));
        for (String name : List.of("summary.schema.json", "summary-2.schema.json", "summary-1.schema.json")) {
            JsonNode text;
            try (var in = SummaryJson.class.getResourceAsStream(SCHEMAS + name)) {
                text = JSON.readTree(in);
            }
            assertEquals(List.of(), metaSchema.validate(text).stream().map(Object::toString).toList(), name);
        }
    }

    private static void run(Path dir, String... load) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--results-dir", dir.toString()));
        args.addAll(List.of(load));
        CliRun run = CliRun.of(server.env(), args.toArray(String[]::new));
        // a run with a failed request may exit non-zero; it still writes its summary, which is what is checked
        assertTrue(run.exitCode() == 0 || run.exitCode() == 1, run::toString);
    }
}
