package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * report and compare on an embeddings run's folder (a real run against the simulator on 127.0.0.1): refused in one
 * line with exit 2 that names it an embeddings run and its files (QA: "holds none of llmperf4j's results").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EmbeddingsFolderReportTest {

    @Test
    void reportAndCompareSayTheFolderIsAnEmbeddingsRun(@TempDir Path dir) throws Exception {
        Path run = dir.resolve("emb");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            CliRun embeddings = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "sim", "--llm-api", "embeddings", "--mean-input-tokens", "50",
                    "--stddev-input-tokens", "0", "--max-num-completed-requests", "2", "--no-client-warmup",
                    "--results-dir", run.toString());
            assertEquals(0, embeddings.exitCode(), embeddings::toString);
        }
        String expected = run + " is an embeddings run's folder (sim_50_150_embeddings_summary.json and its "
                + "*_embeddings.csv): report and compare read generation runs only (TTFT, tokens out); an embeddings "
                + "run's results are those files";
        CliRun.of(Map.of(), "report", run.toString()).assertOneErrorLine(ExitCodes.USAGE, expected);
        CliRun.of(Map.of(), "compare", run.toString(), run.toString()).assertOneErrorLine(ExitCodes.USAGE, expected);
    }
}
