package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capacity search prints its levels' own warnings (each level's summary's) after its answer, as a sweep does: one
 * line per code however many levels it fired at; under --quiet on stderr.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SearchLevelWarningsTest {

    @Test
    void eachLevelsWarningsAreOneLinePerCode(@TempDir Path tmp) throws IOException {
        // levels of 5 requests: each level's summary warns FEW_SAMPLES
        String[] args = {"token-benchmark", "--model", "m", "--no-client-warmup", "--mean-input-tokens", "50",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "2", "--stddev-output-tokens", "0",
                "--slo", "ttft_p99<=10s", "--search", "concurrency", "--search-min", "1", "--search-max", "2",
                "--search-level-max", "5", "--search-min-samples", "1000", "--search-no-repeat", "--sleep-between", "0",
                "--results-dir", ""};
        CliRun run;
        CliRun quiet;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            args[args.length - 1] = tmp.resolve("a").toString();
            run = CliRun.of(env, args);
            args[args.length - 1] = tmp.resolve("b").toString();
            String[] withQuiet = java.util.Arrays.copyOf(args, args.length + 1);
            withQuiet[args.length] = "--quiet";
            quiet = CliRun.of(env, withQuiet);
        }
        assertEquals(0, run.exitCode(), run::toString);
        Pattern line = Pattern.compile("\\[FEW_SAMPLES\\] at concurrency 1, 2; concurrency 1: Only 5 successful "
                + "requests");
        assertTrue(Pattern.compile("\nwarning: " + line.pattern()).matcher(run.out()).find(), run::toString);
        assertEquals(1, run.out().split("\\[FEW_SAMPLES\\]", -1).length - 1, run::toString);
        // the search's files carry each level's own warnings, per level (the QA: its JSON said "warnings": [] and its
        // page had none while the console printed them), and the page links each level's report
        JsonNode doc = JSON.readTree(Files.readString(onlyFile(tmp.resolve("a"), "_search.json")));
        for (JsonNode level : doc.get("levels")) {
            List<String> codes = new ArrayList<>();
            level.get("warnings").forEach(w -> codes.add(w.get("code").asText()));
            assertTrue(codes.contains("FEW_SAMPLES"), level::toString);
            assertEquals(5, level.get("requests_completed").asInt(), level::toString);
        }
        String page = Files.readString(onlyFile(tmp.resolve("a"), "_search.html"));
        assertTrue(page.contains("<li data-level=\"1\">Level 1 (concurrency 1): <code>FEW_SAMPLES</code> Only 5 "
                + "successful requests"), page);
        assertTrue(Pattern.compile("<a href=\"level_02_concurrency_2/[^\"]+_report.html\">2</a>").matcher(page)
                .find(), page);
        assertEquals(0, quiet.exitCode(), quiet::toString);
        assertTrue(Pattern.compile("llmperf4j: warning: " + line.pattern()).matcher(quiet.err()).find(),
                quiet::toString);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path onlyFile(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith(suffix)).toList();
            assertEquals(1, found.size(), found::toString);
            return found.get(0);
        }
    }
}
