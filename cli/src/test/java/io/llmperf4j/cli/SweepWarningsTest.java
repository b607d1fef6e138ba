package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep level's run warnings reach the console (one line per code, the levels merged) and the sweep's JSON (each
 * level's, as its summary has them), and under --quiet stderr. Provoked as a user would: the same sweep sent twice
 * with the same --seed to the simulator, whose prefix cache then serves the second one's prompts (PREFIX_CACHE_REUSED
 * at every level).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepWarningsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CODE = "PREFIX_CACHE_REUSED";
    /** What a loaded machine raises, rightly, whatever the test: the client's event loops ran late. */
    private static final String LOAD_CODE = "CLIENT_BOTTLENECK";

    private static String[] sweep(Path dir, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "sim",
                "--max-num-completed-requests", "10", "--mean-input-tokens", "200", "--stddev-input-tokens", "0",
                "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--no-client-warmup",
                "--concurrency-sweep", "1,2", "--sleep-between", "0", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }

    @Test
    void aSweepsLevelWarningsReachTheConsoleTheSweepFileAndQuietStderr(@TempDir Path tmp) throws IOException {
        CliRun first;
        CliRun again;
        CliRun quiet;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            first = CliRun.of(env, sweep(tmp.resolve("first")));
            again = CliRun.of(env, sweep(tmp.resolve("again")));
            quiet = CliRun.of(env, sweep(tmp.resolve("quiet"), "--quiet"));
        }
        assertEquals(0, first.exitCode(), first::toString);
        assertFalse(first.out().contains(CODE), first::toString);
        for (JsonNode level : RunFolder.sweep(tmp.resolve("first")).get("levels")) {
            // only the code under test: a loaded machine may add LOAD_CODE, rightly
            assertTrue(level.get("warnings").isArray() && codes(level.get("warnings")).stream()
                    .noneMatch(CODE::equals), level::toString);
        }

        assertEquals(0, again.exitCode(), again::toString);
        String firstLevelMessage = summaryWarning(tmp.resolve("again/concurrency_1"));
        List<String> warned = again.out().lines().filter(l -> l.contains(CODE)).toList();
        assertEquals(List.of("warning: [" + CODE + "] at concurrency 1, 2; concurrency 1: " + firstLevelMessage),
                warned, again::toString);
        JsonNode levels = RunFolder.sweep(tmp.resolve("again")).get("levels");
        assertEquals(2, levels.size());
        for (JsonNode level : levels) {
            String folder = level.get("results_dir").asText();
            List<JsonNode> w = new ArrayList<>();
            level.get("warnings").forEach(x -> {
                if (CODE.equals(x.get("code").asText())) w.add(x);
            });
            assertEquals(1, w.size(), level::toString);
            assertEquals(summaryWarning(tmp.resolve("again").resolve(folder)), w.get(0).get("message").asText());
        }

        assertEquals(0, quiet.exitCode(), quiet::toString);
        assertEquals("", quiet.out(), quiet::toString);
        // the level's warning, and beside it only what the quiet sweep's levels truthfully warned too: a loaded
        // machine's CLIENT_BOTTLENECK (its event loops ran late), by its code as every warning
        List<String> expected = new ArrayList<>(List.of("llmperf4j: warning: [" + CODE + "] at concurrency 1, 2; "
                + "concurrency 1: " + summaryWarning(tmp.resolve("quiet/concurrency_1"))));
        List<String> loadAt = new ArrayList<>();
        String loadMessage = null;
        for (JsonNode level : RunFolder.sweep(tmp.resolve("quiet")).get("levels")) {
            for (JsonNode w : level.get("warnings")) {
                String code = w.get("code").asText();
                if (code.equals(CODE)) continue;
                assertEquals(LOAD_CODE, code, level::toString);
                loadAt.add(level.get("results_dir").asText().replace("concurrency_", ""));
                if (loadMessage == null) loadMessage = w.get("message").asText();
            }
        }
        if (!loadAt.isEmpty()) {
            // in WarningCode order, as the console merges a sweep's warnings
            expected.add(WarningCode.valueOf(LOAD_CODE).compareTo(WarningCode.valueOf(CODE)) < 0 ? 0 : 1, "llmperf4j: warning: [" + LOAD_CODE + "] at concurrency " + String.join(", ", loadAt)
                    + (loadAt.size() > 1 ? "; concurrency " + loadAt.get(0) : "") + ": " + loadMessage);
        }
        assertEquals(expected, quiet.err().lines().filter(l -> l.contains("warning")).toList(), quiet::toString);
        assertFalse(quiet.err().contains("done: "), "no level progress when quiet: " + quiet);
    }

    /** The level's PREFIX_CACHE_REUSED message in its {@code _llmperf4j_summary.json}. */
    private static String summaryWarning(Path levelDir) throws IOException {
        JsonNode summary;
        try (var files = Files.list(levelDir)) {
            summary = JSON.readTree(files.filter(p -> p.toString().endsWith("_llmperf4j_summary.json")).findFirst()
                    .orElseThrow().toFile());
        }
        for (JsonNode w : summary.get("warnings")) {
            if (w.get("code").asText().equals(CODE)) return w.get("message").asText();
        }
        throw new AssertionError("no " + CODE + " in " + levelDir + ": " + summary.get("warnings"));
    }

    private static List<String> codes(JsonNode warnings) {
        List<String> codes = new ArrayList<>();
        warnings.forEach(w -> codes.add(w.get("code").asText()));
        return codes;
    }
}
