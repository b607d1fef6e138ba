package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A run writes its HTML report; report rebuilds it from the folder alone, with the same numbers. */
class ReportCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aRunWritesTheReportAndReportRebuildsIt(@TempDir Path dir) throws IOException {
        benchmark(dir, "sk-report-secret", "<b>m&m</b>", 12, 3);
        Path written = dir.resolve("-b-m-m-b-_550_10_report.html"); // llmperf's sanitising keeps the leading dash
        assertTrue(Files.exists(written), () -> String.join(",", dir.toFile().list()));
        String original = Files.readString(written);
        assertTrue(original.contains("&lt;b&gt;m&amp;m&lt;/b&gt;"), "model name escaped");
        assertFalse(original.contains("<script"), "no script");
        assertFalse(original.contains("sk-report-secret"));

        Files.delete(written);
        CliRun rebuilt = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, rebuilt.exitCode(), rebuilt::toString);
        assertEquals(written.toAbsolutePath().toString(), rebuilt.out().strip());
        String again = Files.readString(written);
        assertTrue(again.contains("TTFT") && again.contains("<svg"), "charts and table");
    }

    @Test
    void reportReadsSummariesOfSchema1AndRefusesUnknownVersions(@TempDir Path dir) throws IOException {
        benchmark(dir, "k", "m", 8, 2);
        Path summary = dir.resolve("m_550_10_llmperf4j_summary.json");
        Path html = dir.resolve("m_550_10_report.html");
        ObjectNode doc = (ObjectNode) JSON.readTree(summary.toFile());
        assertEquals("llmperf4j.summary/3", doc.get("schema").asText());
        for (JsonNode key : JSON.readTree(SummaryJson.schemaText()).get("required")) {
            assertTrue(doc.has(key.asText()), "the written summary has every key /3 requires: " + key);
        }

        // as the first llmperf4j.summary/1 files were: without the sections added later
        doc.put("schema", "llmperf4j.summary/1");
        doc.remove(List.of("connections", "phases", "client_overhead", "distributed"));
        ((ObjectNode) doc.get("metrics")).remove(List.of("ttfrt_ms", "itl_per_token_ms"));
        JSON.writeValue(summary.toFile(), doc);
        Files.delete(html);
        CliRun fromVersion1 = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, fromVersion1.exitCode(), fromVersion1::toString);
        String page = Files.readString(html);
        assertTrue(page.contains("data-metric=\"ttft_ms\"") && page.contains("<svg"), "table and charts");

        doc.put("schema", "llmperf4j.summary/4");
        JSON.writeValue(summary.toFile(), doc);
        CliRun fromTheFuture = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(1, fromTheFuture.exitCode(), fromTheFuture::toString);
        assertTrue(fromTheFuture.err().contains("has schema 'llmperf4j.summary/4', which this llmperf4j cannot read "
                + "(it reads llmperf4j.summary/1, llmperf4j.summary/2 and llmperf4j.summary/3)"),
                fromTheFuture::toString);
    }

    @Test
    void aFolderWithoutResultsIsAClearError(@TempDir Path dir) {
        CliRun run = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(2, run.exitCode(), "not a results folder is the input's fault, as in compare: " + run);
        assertTrue(run.err().contains(dir + " holds none of llmperf4j's results"), run::toString);
        CliRun missing = CliRun.of(Map.of(), "report", dir.resolve("nope").toString());
        assertEquals(2, missing.exitCode(), missing::toString);
    }

    /** Issue 21.8: report and compare take a sweep's folder; the page is the sweep's, compare goes level by level. */
    @Test
    void reportAndCompareTakeSweepFolders(@TempDir Path tmp) throws IOException {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            for (Path dir : List.of(a, b)) {
                CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                        "token-benchmark", "--model", "m", "--max-num-completed-requests", "6",
                        "--mean-output-tokens", "10", "--concurrency-sweep", "1,2", "--sleep-between", "0",
                        "--results-dir", dir.toString());
                assertEquals(0, run.exitCode(), run::toString);
            }
        }
        Path page = a.resolve("m_550_10_report.html");
        Files.delete(page);
        CliRun report = CliRun.of(Map.of(), "report", a.toString());
        assertEquals(0, report.exitCode(), report::toString);
        assertEquals(page.toAbsolutePath().toString(), report.out().strip());
        String html = Files.readString(page);
        assertTrue(html.indexOf("<section id=\"sweep\"") < html.indexOf("<section id=\"levels\""), "sweep first");
        for (String chart : List.of("sweep-ttft", "sweep-tpot", "sweep-itl", "sweep-e2e-latency",
                "sweep-latency-throughput")) {
            assertTrue(html.contains("id=\"" + chart + "\""), chart);
        }
        assertTrue(html.contains("href=\"concurrency_2/m_550_10_report.html\""), "links each level's own report");

        CliRun compare = CliRun.of(Map.of(), "compare", a.toString(), b.toString(), "--fail-if", "error_rate>0.5");
        assertEquals(0, compare.exitCode(), compare::toString);
        assertTrue(compare.out().startsWith("Sweeps compared level by level (matched by concurrency): 2 in both\n"),
                compare::toString);
        assertTrue(compare.out().contains("concurrency 2: pass error_rate>0.5"), compare::toString);

        CliRun mixed = CliRun.of(Map.of(), "compare", a.toString(), b.resolve("concurrency_1").toString());
        assertEquals(2, mixed.exitCode(), mixed::toString);
        assertTrue(mixed.err().contains("is a sweep and"), mixed::toString);
    }

    /**
     * A sweep run with iterations keeps no folder per level: report builds each level's page of iterations beside the
     * sweep's, as an iterations folder's, and the sweep's page links them (a rate sweep: the level's JMH score too).
     */
    @Test
    void reportBuildsEachLevelsIterationsPageOfASweepOfIterations(@TempDir Path dir) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--mean-output-tokens", "10", "--stddev-output-tokens", "0",
                    "--rate-sweep", "10,20", "--iterations", "2", "--iteration-time", "0.3", "--warmup-iterations",
                    "0", "--sleep-between", "0", "--no-client-warmup", "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, report.exitCode(), report::toString);
        Path sweepPage = dir.resolve("m_550_10_report.html");
        assertEquals(sweepPage.toAbsolutePath().toString(), report.out().strip());
        String sweep = Files.readString(sweepPage);
        for (String level : List.of("10", "20")) {
            String name = "m_550_10_rate_" + level + "_report.html";
            assertTrue(sweep.contains("<a href=\"" + name + "\">this level's iterations</a>"), name + ": " + sweep);
            String page = Files.readString(dir.resolve(name));
            assertTrue(page.contains("<h2>req/s " + level + "</h2>"), page);
            assertTrue(page.contains("one level of <a href=\"m_550_10_report.html\">the sweep</a>"), page);
            assertTrue(page.contains("<span class=\"ci\">± "), "the level's score from the JMH file: " + page);
            assertFalse(page.contains("<h2>req/s " + (level.equals("10") ? "20" : "10") + "</h2>"), "one level");
        }
    }

    /** A token benchmark of {@code model} against a fast simulator, its results written to {@code dir}. */
    private static void benchmark(Path dir, String apiKey, String model, int requests, int concurrency) {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", apiKey),
                    "token-benchmark", "--model", model, "--max-num-completed-requests", Integer.toString(requests),
                    "--num-concurrent-requests", Integer.toString(concurrency), "--mean-output-tokens", "10",
                    "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
    }
}
