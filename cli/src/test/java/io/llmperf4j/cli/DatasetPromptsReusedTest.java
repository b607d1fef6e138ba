package io.llmperf4j.cli;

import io.llmperf4j.datasets.manifest.WorkloadManifest;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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
 * A dataset of single prompts (ShareGPT without {@code --turns}, a prompts file) with fewer prompts than the run's
 * requests sends them again: stderr says so once, and a saved manifest records how often ({@code passes}). Before,
 * the prompts were sent again without a word, as a replayed conversation had been.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DatasetPromptsReusedTest {

    private static String conversation(String word) {
        return "{\"conversations\":[{\"from\":\"human\",\"value\":\"Tell me about " + word + ", please\"},"
                + "{\"from\":\"gpt\",\"value\":\"Here is a short answer about " + word + ".\"}]}";
    }

    private static CliRun run(Path dir, String dataset, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--dataset", dataset,
                "--num-concurrent-requests", "2", "--no-client-warmup", "--no-server-metrics",
                "--results-dir", dir.resolve("out").toString()));
        args.addAll(List.of(extra));
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    args.toArray(String[]::new));
        }
    }

    @Test
    void shareGptPromptsSentAgainAreSaidAndRecorded(@TempDir Path dir) throws Exception {
        Path data = Files.writeString(dir.resolve("sg.json"), "[" + conversation("cats") + ","
                + conversation("dogs") + "," + conversation("birds") + "]");
        Path manifest = dir.resolve("saved.jsonl");
        CliRun run = run(dir, "sharegpt:" + data, "--save-workload", manifest.toString());
        assertEquals(0, run.exitCode(), run::toString);
        String line = "llmperf4j: --dataset sharegpt:" + data + ": its 3 prompts that fit are reused for the 10 "
                + "requests: sent 4 times, the last pass cut short, in the same order; from the second pass on, the "
                + "server's prefix cache can serve every prompt again and TTFT times a cached prefill (a larger "
                + "dataset, or --max-num-completed-requests 3 or fewer, sends each once)\n";
        assertTrue(run.err().contains(line), run::toString);
        assertEquals(run.err().indexOf(line), run.err().lastIndexOf(line), "said once");
        Map<String, Object> generation = WorkloadManifest.read(manifest).header().generation();
        assertEquals(4, generation.get("passes"), generation::toString);
        assertEquals(3, generation.get("distinct_prompts"), generation::toString);

        CliRun once = run(dir.resolve("once"), "sharegpt:" + data, "--max-num-completed-requests", "3");
        assertEquals(0, once.exitCode(), once::toString);
        assertFalse(once.err().contains("reused"), once::toString);
    }

    @Test
    void aPromptsFileThatWrapsIsSaid(@TempDir Path dir) throws Exception {
        Path data = Files.writeString(dir.resolve("p.jsonl"), "{\"prompt\": \"Hello world\", \"max_tokens\": 8}\n"
                + "{\"prompt\": \"Name three colors\", \"max_tokens\": 8}\n");
        CliRun run = run(dir, "prompts:" + data);
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: --dataset prompts:" + data + ": its 2 prompts are reused for the 10 "
                + "requests: sent 5 times, in the same order; from the second pass on"), run::toString);
    }
}
