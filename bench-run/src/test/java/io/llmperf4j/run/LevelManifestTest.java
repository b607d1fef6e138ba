package io.llmperf4j.run;

import io.llmperf4j.datasets.manifest.ManifestHeader;
import io.llmperf4j.datasets.manifest.WorkloadManifest;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A workload drawn per level and fork is saved draw by draw in one manifest, and replayed draw by draw: what each
 * level and fork of the replay sends is what it sent.
 */
class LevelManifestTest {
    private static final PrintStream QUIET = new PrintStream(new ByteArrayOutputStream());
    private static final long SEED = 11111;
    private static final WorkloadSource.Levels TWO_BY_TWO = new WorkloadSource.Levels(
            List.of("concurrency 1", "concurrency 2"), 2, false);

    private static WorkloadSpec spec(Path save, Path replay) {
        WorkloadSpec d = WorkloadSpec.llmperfDefaults();
        return new WorkloadSpec(60, 10, 5, 0, d.tokenizer(), d.allowDownload(), d.promptMode(), d.corpus(), SEED,
                d.inputLengths(), d.outputLengths(), d.dataset(), d.datasetPromptTokens(), d.datasetOutputTokens(),
                d.prompt(), d.maxTokens(), d.scenario(), d.scenarioLang(), d.prefixTokens(), save, replay,
                d.sessions(), d.images());
    }

    private static List<String> prompts(List<RequestSpec> specs) {
        return specs.stream().map(RequestSpec::prompt).toList();
    }

    @Test
    void everyLevelAndForkIsSavedAndReplayedAsItWasDrawn(@TempDir Path dir) {
        Path file = dir.resolve("w.jsonl");
        WorkloadSource drawn = WorkloadSource.resolve(spec(file, null), 3, Map.of(), TWO_BY_TWO, QUIET);
        WorkloadManifest saved = WorkloadManifest.read(file);
        assertEquals(12, saved.requests().size());
        List<LevelManifest.Entry> entries = LevelManifest.entries(saved.header(), file);
        assertEquals(List.of(new LevelManifest.Entry("concurrency 1", 0, 0, SEED, 0, 3),
                new LevelManifest.Entry("concurrency 1", 0, 1, WorkloadSource.drawSeed(SEED, 0, 1), 3, 3),
                new LevelManifest.Entry("concurrency 2", 1, 0, WorkloadSource.drawSeed(SEED, 1, 0), 6, 3),
                new LevelManifest.Entry("concurrency 2", 1, 1, WorkloadSource.drawSeed(SEED, 1, 1), 9, 3)), entries);
        assertEquals(3, LevelManifest.requestsPerLevel(file));

        WorkloadSource replayed = WorkloadSource.resolve(spec(null, file), 3, Map.of(), TWO_BY_TWO, QUIET);
        for (int level = 0; level < 2; level++) {
            for (int fork = 0; fork < 2; fork++) {
                List<RequestSpec> sent = replayed.draw(SEED, level, fork);
                assertEquals(prompts(drawn.draw(SEED, level, fork)), prompts(sent), level + "/" + fork);
                assertEquals(List.of(0, 1, 2), sent.stream().map(RequestSpec::index).toList(), "indexed as sent");
            }
        }
        assertEquals(prompts(drawn.requests()), prompts(replayed.requests()));

        // fewer: the first two of each draw
        WorkloadSource two = WorkloadSource.resolve(spec(null, file), 2, Map.of(), TWO_BY_TWO, QUIET);
        assertEquals(prompts(drawn.draw(SEED, 1, 1)).subList(0, 2), prompts(two.draw(SEED, 1, 1)));
    }

    @Test
    void aRunThatTheManifestCannotFeedIsRefused(@TempDir Path dir) {
        Path file = dir.resolve("w.jsonl");
        WorkloadSource.resolve(spec(file, null), 3, Map.of(), new WorkloadSource.Levels(List.of("rate 1 req/s",
                "rate 2 req/s"), 1, false), QUIET);
        InvalidRequestException more = assertThrows(InvalidRequestException.class, () -> WorkloadSource.resolve(
                spec(null, file), 3, Map.of(), TWO_BY_TWO, QUIET));
        assertEquals("--workload " + file + " holds the requests of 2 levels (rate 1 req/s, rate 2 req/s), level by "
                + "level; this run has 2 levels x 2 forks: replay it with at most as many", more.getMessage());
        InvalidRequestException search = assertThrows(InvalidRequestException.class, () -> WorkloadSource.resolve(
                spec(null, file), 3, Map.of(), new WorkloadSource.Levels(List.of("concurrency 1"), 1, true), QUIET));
        assertTrue(search.getMessage().contains("--search chooses its own levels"), search::getMessage);

        ManifestHeader header = WorkloadManifest.header(file);
        Map<String, Object> generation = new java.util.LinkedHashMap<>(header.generation());
        generation.put("levels", List.of(Map.of("level", "concurrency 1", "level_index", -1)));
        ManifestHeader bad = new ManifestHeader(header.kind(), header.tokenizer(), header.seed(), header.source(),
                header.sourceSha256(), generation, header.samplingParams());
        InvalidRequestException malformed = assertThrows(InvalidRequestException.class,
                () -> LevelManifest.entries(bad, file));
        assertEquals("--workload " + file + ": generation.levels in its header is malformed (an entry's level_index "
                + "is not a whole number >= 0)", malformed.getMessage());
    }

    @Test
    void aSearchOrAWorkloadSentAsItIsSavesOneList(@TempDir Path dir) {
        Path file = dir.resolve("w.jsonl");
        WorkloadSource search = WorkloadSource.resolve(spec(file, null), 3, Map.of(),
                new WorkloadSource.Levels(List.of("concurrency 1"), 1, true), QUIET);
        WorkloadManifest saved = WorkloadManifest.read(file);
        assertEquals(prompts(search.requests()), prompts(saved.requests()));
        assertTrue(LevelManifest.entries(saved.header(), file).isEmpty());
        assertEquals(3, LevelManifest.requestsPerLevel(file));
    }
}
