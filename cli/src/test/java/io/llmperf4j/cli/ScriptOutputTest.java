package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** token-benchmark for scripts: --output-format json puts the summary, alone, on stdout; --quiet keeps it silent. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScriptOutputTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(3))
            .interTokenDelay(Duration.ofMillis(1)));

    private static CliRun bench(String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "8", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "3", "--num-concurrent-requests", "3", "--no-client-warmup"));
        args.addAll(List.of(extra));
        return CliRun.of(server.env(),
                args.toArray(String[]::new));
    }

    @Test
    void jsonPutsTheSummaryAloneOnStdoutAndLeavesNoTemporaryFolder() throws IOException {
        List<Path> before = temporaryFolders();
        CliRun run = bench("--output-format", "json");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = JSON.readTree(run.out()); // the whole of stdout is one JSON document
        assertEquals("llmperf4j.summary/3", summary.path("schema").asText(), run::toString);
        assertEquals(3, summary.path("run").path("requests_sent").asInt(-1), run::toString);
        assertTrue(run.err().contains("Results for token benchmark"), "the report went to stderr: " + run);
        assertFalse(run.err().contains("Results written to"), "the temporary folder is not the user's: " + run);
        assertEquals(before, temporaryFolders(), "the temporary folder is deleted");
    }

    @Test
    void jsonWithAResultsFolderPrintsTheSummaryWrittenThere(@TempDir Path dir) throws IOException {
        CliRun run = bench("--output-format", "json", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        Path written;
        try (Stream<Path> files = Files.list(dir)) {
            written = files.filter(f -> f.toString().endsWith("_llmperf4j_summary.json")).findFirst().orElseThrow();
        }
        assertEquals(JSON.readTree(written.toFile()), JSON.readTree(run.out()));
        assertTrue(run.err().contains("Results written to " + dir.toAbsolutePath()), run::toString);
    }

    @Test
    void jsonOfASweepIsTheSweepSummary() throws IOException {
        CliRun run = bench("--output-format", "json", "--concurrency-sweep", "1,2", "--sleep-between", "0",
                "--quiet");
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode sweep = JSON.readTree(run.out());
        assertEquals(2, sweep.path("levels").size(), run::toString);
        assertFalse(run.err().contains("done: "), "no level progress when quiet: " + run);
    }

    @Test
    void quietPrintsNoReportAndNoProgressButItsWarningsOnStderr(@TempDir Path dir) throws IOException {
        CliRun run = bench("--quiet", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals("", run.out(), run::toString);
        assertFalse(run.err().contains("requests done"), run::toString);
        assertTrue(run.err().contains("Results written to"), "file names still go to stderr: " + run);
        // 3 requests: FEW_SAMPLES, one line on stderr as the report says it
        Path written;
        try (Stream<Path> files = Files.list(dir)) {
            written = files.filter(f -> f.toString().endsWith("_llmperf4j_summary.json")).findFirst().orElseThrow();
        }
        List<String> expected = new ArrayList<>();
        for (JsonNode w : JSON.readTree(written.toFile()).path("warnings")) {
            // as the console says them, each by its code (a loaded machine's CLIENT_BOTTLENECK among them)
            expected.add("llmperf4j: warning: [" + w.path("code").asText() + "] " + w.path("message").asText());
        }
        assertTrue(expected.stream().anyMatch(l -> l.startsWith("llmperf4j: warning: [FEW_SAMPLES] Only 3 "
                + "successful requests")), expected::toString);
        assertEquals(expected, run.err().lines().filter(l -> l.startsWith("llmperf4j: warning: ")).toList(),
                run::toString);
    }

    @Test
    void anUnknownFormatIsRefused() {
        bench("--output-format", "yaml").assertOneErrorLine(ExitCodes.USAGE,
                "--output-format must be 'text' or 'json' (got 'yaml')");
    }

    private static List<Path> temporaryFolders() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(f -> f.getFileName().toString().startsWith("llmperf4j-json-")).sorted().toList();
        }
    }
}
