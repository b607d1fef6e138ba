package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each sweep level draws prompts of its own, against the simulator's prefix cache (on by default): the second level
 * of a sweep is served from the cache no more than the first (before, it resent the first level's prompts, 98 %
 * cached). A plain run repeated with the same --seed is warned PREFIX_CACHE_REUSED; another --seed is not.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepPromptsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SimulatedServer server() {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ZERO)
                .interTokenDelay(Duration.ZERO).build());
    }

    private static String[] run(Path dir, String... load) {
        String[] common = {"token-benchmark", "--model", "sim", "--max-num-completed-requests", "6",
                "--mean-input-tokens", "200", "--stddev-input-tokens", "0", "--mean-output-tokens", "3",
                "--stddev-output-tokens", "0", "--no-client-warmup", "--results-dir", dir.toString()};
        String[] all = new String[common.length + load.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(load, 0, all, common.length, load.length);
        return all;
    }

    @Test
    void aSweepsSecondLevelSendsPromptsOfItsOwn(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("out");
        try (SimulatedServer server = server()) {
            CliRun run = CliRun.of(env(server), run(out, "--concurrency-sweep", "1,2", "--sleep-between", "0"));
            assertEquals(0, run.exitCode(), run::toString);
        }
        JsonNode first = summary(out.resolve("concurrency_1"));
        JsonNode second = summary(out.resolve("concurrency_2"));
        double firstRate = first.get("sessions").get("prefix_cache_hit_rate").asDouble();
        double secondRate = second.get("sessions").get("prefix_cache_hit_rate").asDouble();
        // only llmperf's fixed instruction (one 16-token block of ~200) is shared between prompts
        assertTrue(firstRate < 0.2, "first level " + firstRate);
        assertTrue(secondRate < 0.2, "second level " + secondRate + " (the first level's prompts again?)");
        assertFalse(second.toString().contains("PREFIX_CACHE_REUSED"), second.get("warnings")::toString);
    }

    @Test
    void aRunRepeatedWithTheSameSeedIsWarnedAndAnotherSeedIsNot(@TempDir Path tmp) throws IOException {
        CliRun again;
        CliRun otherSeed;
        try (SimulatedServer server = server()) {
            CliRun first = CliRun.of(env(server), run(tmp.resolve("a")));
            assertEquals(0, first.exitCode(), first::toString);
            assertFalse(first.out().contains("PREFIX_CACHE_REUSED"), first::toString);
            again = CliRun.of(env(server), run(tmp.resolve("b")));
            otherSeed = CliRun.of(env(server), run(tmp.resolve("c"), "--seed", "7"));
        }
        assertEquals(0, again.exitCode(), again::toString);
        JsonNode warned = summary(tmp.resolve("b"));
        JsonNode cache = warned.get("sessions");
        double rate = cache.get("prefix_cache_hit_rate").asDouble();
        assertTrue(rate > 0.9, "a rerun with the same seed: " + rate);
        String message = String.format(java.util.Locale.ROOT, "%.1f %% of the prompt tokens (%d of %d) came from "
                        + "the server's prefix cache, though this workload's prompts do not share prefixes by design: "
                        + "they were sent to this server before, by an earlier run with the same --seed, so TTFT "
                        + "measures cached prefill. Use another --seed, or restart the server (or reset its prefix "
                        + "cache).", 100.0 * cache.get("cached_tokens").asLong() / cache.get("prompt_tokens").asLong(),
                cache.get("cached_tokens").asLong(), cache.get("prompt_tokens").asLong());
        assertTrue(again.out().contains("[PREFIX_CACHE_REUSED] " + message), again::toString);
        JsonNode warning = null;
        for (JsonNode w : warned.get("warnings")) if (w.get("code").asText().equals("PREFIX_CACHE_REUSED")) warning = w;
        assertEquals(message, warning == null ? null : warning.get("message").asText(), warned.get("warnings")::toString);

        assertEquals(0, otherSeed.exitCode(), otherSeed::toString);
        assertFalse(otherSeed.out().contains("PREFIX_CACHE_REUSED"), otherSeed::toString);
        assertTrue(summary(tmp.resolve("c")).get("sessions").get("prefix_cache_hit_rate").asDouble() < 0.2);
    }

    private static Map<String, String> env(SimulatedServer server) {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
    }

    private static JsonNode summary(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return JSON.readTree(files.filter(p -> p.toString().endsWith("_llmperf4j_summary.json")).findFirst()
                    .orElseThrow().toFile());
        }
    }
}
