package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A run writes its HTML report; report rebuilds it from the folder alone, with the same numbers. */
class ReportCommandTest {
    @Test
    void aRunWritesTheReportAndReportRebuildsIt(@TempDir Path dir) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "sk-report-secret"),
                    "token-benchmark", "--model", "<b>m&m</b>", "--max-num-completed-requests", "12",
                    "--num-concurrent-requests", "3", "--mean-output-tokens", "10", "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
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
    void aFolderWithoutResultsIsAClearError(@TempDir Path dir) {
        CliRun run = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.err().startsWith("llmperf4j: error: cannot build the report:"), run::toString);
        CliRun missing = CliRun.of(Map.of(), "report", dir.resolve("nope").toString());
        assertEquals(2, missing.exitCode(), missing::toString);
    }
}
