package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.report.search.SearchDocument;
import io.llmperf4j.report.search.SearchFiles;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A search level's page that cannot be rebuilt after the search (its summary unreadable by then) kept its first
 * version silently: the search's writer now says so on stderr and as the level's warning in the search's JSON and
 * page, and still writes every level and keeps the page. A real search against the simulator on 127.0.0.1, then the
 * search's own writer run again over its folder with the level's summary spoilt.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SearchLevelPageNotRebuiltTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final String BASE = "m_40_3";

    @Test
    void aLevelPageThatCannotBeRebuiltIsWarnedOfAndKept(@TempDir Path dir) throws Exception {
        CliRun run;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build())) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--max-num-completed-requests", "4",
                    "--no-client-warmup", "--no-server-metrics", "--slo", "ttft_p99<=30s", "--search",
                    "concurrency", "--search-min", "2", "--search-max", "2", "--search-level-max", "6",
                    "--search-no-repeat", "--results-dir", dir.toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(!run.err().contains(SearchFiles.PAGE_NOT_REBUILT), run::toString); // the run's own pages rebuilt
        Path json = dir.resolve(BASE + "_search.json");
        SearchDocument doc = JSON.readValue(json.toFile(), SearchDocument.class);
        assertEquals(1, doc.levels().size());
        String levelDir = doc.levels().get(0).resultsDir();
        Path page = dir.resolve(levelDir).resolve(BASE + "_report.html");
        String firstVersion = Files.readString(page);
        Files.writeString(dir.resolve(levelDir).resolve(BASE + "_llmperf4j_summary.json"), "{"); // spoilt

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<Path> files;
        try (PrintStream stream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            files = SearchFiles.write(dir, BASE, doc, stream);
        }
        assertEquals(3, files.size(), files::toString);
        String stderr = err.toString(StandardCharsets.UTF_8);
        String start = "llmperf4j: warning: search level 1 (concurrency 2): its page " + levelDir + "/" + BASE
                + "_report.html could not be rebuilt after the search (";
        assertTrue(stderr.startsWith(start), stderr);
        assertTrue(stderr.contains("): it keeps the version written as the level ended, in a plain run's words"),
                stderr);
        assertEquals(1, stderr.lines().count(), stderr);
        assertEquals(firstVersion, Files.readString(page), "the page keeps its first version");

        JsonNode written = JSON.readTree(json.toFile());
        assertEquals(1, written.get("levels").size(), written::toString);
        JsonNode warning = null;
        for (JsonNode w : written.at("/levels/0/warnings")) {
            if (SearchFiles.PAGE_NOT_REBUILT.equals(w.get("code").asText())) warning = w;
        }
        assertTrue(warning != null, written::toString);
        assertTrue(stderr.contains(warning.get("message").asText()), stderr);
        String html = Files.readString(dir.resolve(BASE + "_search.html"));
        assertTrue(html.contains("<li data-level=\"1\">Level 1 (concurrency 2): <code>LEVEL_PAGE_NOT_REBUILT</code> "
                + "its page " + levelDir + "/" + BASE + "_report.html could not be rebuilt"), html);
    }
}
