package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A session's later turn resends the earlier turns' images, so the server receives and counts them: the record's
 * image count is every image the request carried (QA: turn 2 of three counted 1 of its 3 images, the summary half the
 * images and bytes, and the per-image token figure divided the history's image tokens by the new images alone).
 */
class SessionImagesCountedTest {

    @Test
    void aLaterTurnCountsTheImagesItsHistoryResends(@TempDir Path tmp) throws IOException {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(Tokenizers.builtInLlama2()).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"),
                    "token-benchmark", "--model", "qwen2.5-vl", "--turns", "3", "--images-per-request", "1",
                    "--image-size", "64x64", "--mean-input-tokens", "30", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "3", "--stddev-output-tokens", "0", "--max-num-completed-requests", "6",
                    "--num-concurrent-requests", "2", "--no-client-warmup", "--no-server-metrics",
                    "--results-dir", tmp.toString());
            assertEquals(0, run.exitCode(), run::toString);
            List<CSVRecord> rows = RunFolder.csv(tmp);
            assertEquals(6, rows.size());
            long bytesOfOne = -1;
            for (CSVRecord row : rows) {
                int turn = Integer.parseInt(row.get("turn"));
                assertEquals(Integer.toString(turn + 1), row.get("image_count"), "turn " + turn + ": " + row);
                assertEquals(Long.toString((turn + 1) * 64L * 64L), row.get("image_pixels"));
                if (turn == 0) bytesOfOne = Long.parseLong(row.get("image_bytes"));
            }
            JsonNode images = RunFolder.summary(tmp).get("images");
            assertEquals(2 * (1 + 2 + 3), images.get("images_sent").asLong(), images::toString);
            assertTrue(run.out().contains("Images: 12 sent in 6 requests"), run::toString);
            assertTrue(run.err().contains("images: 6 in 6 requests (") && run.err().contains("; each session's later "
                    + "turns also resend its earlier turns' images (the results count every image sent)"), run::toString);
            assertTrue(bytesOfOne > 0, "a turn 0 row");
        }
    }
}
