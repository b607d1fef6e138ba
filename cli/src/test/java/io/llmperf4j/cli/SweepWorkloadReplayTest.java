package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.datasets.manifest.WorkloadManifest;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * --save-workload in a sweep keeps every level's own prompts (each level draws its own), level by level in one
 * manifest, and --workload with the same levels sends each level exactly what that level sent: checked on the wire of
 * a server that records every body, level by level (a sweep's levels run one after another).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepWorkloadReplayTest {
    private static final int PER_LEVEL = 4;

    private static CliRun run(BodyRecordingServer server, String... args) {
        List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--no-client-warmup"));
        all.addAll(List.of(args));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                all.toArray(String[]::new));
    }

    /** The user prompt of each body, level by level: {@code levels} lists of {@link #PER_LEVEL}, each sorted. */
    private static List<List<String>> byLevel(List<JsonNode> bodies, int levels) {
        assertEquals(levels * PER_LEVEL, bodies.size());
        List<List<String>> out = new ArrayList<>();
        for (int level = 0; level < levels; level++) {
            List<String> prompts = new ArrayList<>();
            for (JsonNode body : bodies.subList(level * PER_LEVEL, (level + 1) * PER_LEVEL)) {
                JsonNode messages = body.get("messages");
                prompts.add(messages.get(messages.size() - 1).get("content").asText());
            }
            Collections.sort(prompts);
            out.add(prompts);
        }
        return out;
    }

    @Test
    void everyLevelsPromptsAreSavedAndASweepReplaysEachLevelsOwn(@TempDir Path tmp) throws IOException {
        Path manifest = tmp.resolve("sweep.jsonl");
        List<List<String>> sent;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            CliRun save = run(server, "--mean-input-tokens", "60", "--stddev-input-tokens", "20",
                    "--max-num-completed-requests", Integer.toString(PER_LEVEL), "--concurrency-sweep", "1,2",
                    "--sleep-between", "0",
                    "--save-workload", manifest.toString());
            assertEquals(0, save.exitCode(), save::toString);
            assertTrue(save.err().contains("Workload written to " + manifest.toAbsolutePath() + " (2 levels x 4 "
                    + "requests, each level's own prompts in run order; replay them level by level with --workload)"),
                    save::toString);
            sent = byLevel(server.bodies(), 2);
        }
        assertTrue(Collections.disjoint(sent.get(0), sent.get(1)), "each level drew prompts of its own: " + sent);

        // the manifest: both levels' requests in run order, told apart by generation.levels
        WorkloadManifest saved = WorkloadManifest.read(manifest);
        assertEquals(2 * PER_LEVEL, saved.requests().size());
        for (int level = 0; level < 2; level++) {
            List<String> prompts = new ArrayList<>(saved.requests().subList(level * PER_LEVEL, (level + 1) * PER_LEVEL)
                    .stream().map(RequestSpec::prompt).toList());
            Collections.sort(prompts);
            assertEquals(sent.get(level), prompts, "level " + level + " of the file is what that level sent");
        }
        List<?> levels = (List<?>) saved.header().generation().get("levels");
        assertEquals(Map.of("level", "concurrency 1", "level_index", 0, "fork", 0, "seed", 11111, "first_index", 0,
                "request_count", 4), levels.get(0));
        Map<?, ?> second = (Map<?, ?>) levels.get(1);
        assertEquals(List.of("concurrency 2", 1, 0, 4, 4), List.of(second.get("level"), second.get("level_index"),
                second.get("fork"), second.get("first_index"), second.get("request_count")), second::toString);

        try (BodyRecordingServer server = new BodyRecordingServer()) {
            // the same sweep replayed: each level sends what it sent (the count comes from the file: 4 per level)
            CliRun replay = run(server, "--workload", manifest.toString(), "--concurrency-sweep", "1,2",
                    "--sleep-between", "0",
                    "--results-dir", tmp.resolve("replay").toString());
            assertEquals(0, replay.exitCode(), replay::toString);
            assertEquals(sent, byLevel(server.bodies(), 2), replay::toString);
            assertTrue(replay.err().contains("llmperf4j: replaying " + manifest + " level by level: each level sends "
                    + "the requests saved for its place in the sweep (concurrency 1, concurrency 2)"), replay::toString);
            for (String level : List.of("concurrency_1", "concurrency_2")) {
                assertEquals(PER_LEVEL, RunFolder.summary(tmp.resolve("replay").resolve(level)).get("settings")
                        .get("max_num_completed_requests").asInt());
            }

            // a plain run replays the first level's
            server.bodies.clear();
            CliRun plain = run(server, "--workload", manifest.toString());
            assertEquals(0, plain.exitCode(), plain::toString);
            assertEquals(sent.subList(0, 1), byLevel(server.bodies(), 1), plain::toString);
        }

        Map<String, String> nowhere = ClosedPort.env(ClosedPort.find());
        CliRun.of(nowhere, "token-benchmark", "--model", "m", "--workload", manifest.toString(),
                "--concurrency-sweep", "1,2,4").assertOneErrorLine(2, "--workload " + manifest + " holds the requests "
                + "of 2 levels (concurrency 1, concurrency 2), level by level; this run has 3 levels: replay it with "
                + "at most as many");
        CliRun.of(nowhere, "token-benchmark", "--model", "m", "--workload", manifest.toString(), "--slo",
                "ttft_p99<=500ms", "--search", "concurrency").assertOneErrorLine(2, "--search chooses its own levels");
    }
}
