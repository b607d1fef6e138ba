package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Without --results-dir no file is written (llmperf's rule), and the run's last line on stderr says so and how to save
 * (QA: nothing said it); with --results-dir the line is not there.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NothingSavedLineTest {
    private static final String LINE = "llmperf4j: nothing was saved: without --results-dir no file is written "
            + "(llmperf's rule); give --results-dir DIR to keep a run's results";

    @Test
    void aRunWithoutResultsDirSaysNothingWasSaved(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            List<String> args = List.of("token-benchmark", "--model", "m", "--max-num-completed-requests", "2",
                    "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--no-client-warmup");
            CliRun unsaved = CliRun.of(env, args.toArray(String[]::new));
            assertEquals(0, unsaved.exitCode(), unsaved::toString);
            List<String> lines = unsaved.err().lines().filter(l -> !l.isBlank()).toList();
            assertEquals(LINE, lines.get(lines.size() - 1), unsaved::toString);
            assertEquals(1, lines.stream().filter(LINE::equals).count(), unsaved::toString);

            List<String> saving = new java.util.ArrayList<>(args);
            saving.addAll(List.of("--results-dir", dir.toString()));
            CliRun saved = CliRun.of(env, saving.toArray(String[]::new));
            assertEquals(0, saved.exitCode(), saved::toString);
            assertFalse(saved.err().contains("nothing was saved"), saved::toString);
        }
    }
}
