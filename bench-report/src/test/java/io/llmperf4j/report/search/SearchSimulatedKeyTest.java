package io.llmperf4j.report.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.html.SimulatedNotice;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.report.testutil.Records;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code <base>_search.json} says once whether the search ran against the embedded simulated server
 * ({@code simulated}, after {@code model}), and its page's notice reads it there; a file written before the key reads
 * back as not known.
 */
class SearchSimulatedKeyTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final RunEnvironment ENVIRONMENT =
            new RunEnvironment("OpenJDK 64-Bit Server VM", "Eclipse Adoptium", "17.0.12+7", "Linux", "6.1.0", "amd64", 8);
    private static final String BASE = "m_550_150";

    private static SearchDocument search(String resultsDir) {
        SearchDocument.Level level = new SearchDocument.Level(1, "grow", 2, true, true, "resolved", 12, 12, 1.0, 12.0,
                120.0, 12.0, null, null, null, "ttft_p90<=250ms", List.of(new SearchDocument.Objective(
                "ttft_p90<=250ms", 12, 0, 101.0, 100.0, 103.0, 250, "ms", true, true)), null, resultsDir, List.of());
        return new SearchDocument(SearchDocument.SCHEMA, "m", "concurrency", "concurrency", List.of("ttft_p90<=250ms"),
                "above_range", 2.0, null, "ttft_p90<=250ms", null, "verdict", List.of(),
                new SearchDocument.Settings(1, 2, 0.1, "12 requests", 10, 0.95, "closed loop"), List.of(level));
    }

    /** A level folder holding a summary whose settings say {@code simulated}. */
    private static void levelSummary(Path dir, Boolean simulated) throws Exception {
        BenchmarkSettings s = Records.settings();
        BenchmarkSettings settings = s.toBuilder()
                .model("m")
                .numConcurrentRequests(2)
                .stream(true)
                .connectionMode("preconnect")
                .simulated(simulated)
                .build();
        List<io.llmperf4j.model.RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            records.add(Records.request(i).evenEvents(100 * Records.MS, 10 * Records.MS, 5)
                    .e2e(150 * Records.MS).usage(550, 5).client(6).build());
        }
        BenchmarkRun run = Records.run(settings, 500 * Records.MS, false, records);
        SummaryJson.write(run, RunMetrics.of(run, MetricsConfig.DEFAULT), "0.1.0-test", ENVIRONMENT, dir);
    }

    private static List<Path> write(Path dir, SearchDocument doc) throws Exception {
        try (PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)) {
            return SearchFiles.write(dir, BASE, doc, err);
        }
    }

    private static String notice() {
        return SimulatedNotice.LINE.substring(0, SimulatedNotice.LINE.indexOf(','));
    }

    @Test
    void theDocumentSaysItOnceAndThePageReadsIt(@TempDir Path dir) throws Exception {
        Path sim = dir.resolve("sim");
        write(sim, search(null).withSimulated(true));
        JsonNode json = JSON.readTree(sim.resolve(BASE + "_search.json").toFile());
        assertTrue(json.get("simulated").asBoolean(false), json::toString);
        List<String> keys = new ArrayList<>();
        json.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("schema", "model", "simulated", "search"), keys.subList(0, 4));
        assertTrue(Files.readString(sim.resolve(BASE + "_search.html")).contains(notice()), "the page reads it");

        Path real = dir.resolve("real");
        write(real, search(null).withSimulated(false));
        json = JSON.readTree(real.resolve(BASE + "_search.json").toFile());
        assertTrue(json.has("simulated") && !json.get("simulated").asBoolean(true), json::toString);
        assertFalse(Files.readString(real.resolve(BASE + "_search.html")).contains(notice()));
    }

    /** A document given without it takes it from a level's summary, and a real endpoint's false is written too. */
    @Test
    void aDocumentGivenWithoutItTakesItFromALevelsSummary(@TempDir Path dir) throws Exception {
        for (boolean simulated : new boolean[] {true, false}) {
            Path search = dir.resolve("search-" + simulated);
            levelSummary(search.resolve("level_01_concurrency_2"), simulated);
            write(search, search("level_01_concurrency_2"));
            JsonNode json = JSON.readTree(search.resolve(BASE + "_search.json").toFile());
            assertEquals(simulated, json.path("simulated").asBoolean(!simulated), json::toString);
            assertEquals(simulated, Files.readString(search.resolve(BASE + "_search.html")).contains(notice()));
        }
        Path unknown = dir.resolve("no-summary");
        write(unknown, search(null));
        JsonNode json = JSON.readTree(unknown.resolve(BASE + "_search.json").toFile());
        assertFalse(json.has("simulated"), "not known: left out, " + json);
    }

    @Test
    void aFileWrittenBeforeTheKeyReadsAsNotKnown(@TempDir Path dir) throws Exception {
        write(dir, search(null).withSimulated(true));
        Path file = dir.resolve(BASE + "_search.json");
        ObjectNode older = (ObjectNode) JSON.readTree(file.toFile());
        older.remove("simulated");
        SearchDocument doc = JSON.treeToValue(older, SearchDocument.class);
        assertNull(doc.simulated());
        assertEquals("verdict", doc.verdict());
        assertFalse(SearchHtml.render(doc).contains(notice()));
        assertTrue(SearchHtml.render(doc.withSimulated(true)).contains(notice()));
    }
}
