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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A warmup sends synthetic prompts of its own, drawn from a seed of their own: the measured requests send exactly
 * what the same command without warmup sends, in the same order, none of them a warmup's prompt (a prefix cache
 * would serve it). Checked on the wire of a server that keeps every body, for a closed loop's --warmup-requests and
 * an open loop's --warmup-duration. And PREFIX_CACHE_REUSED is not raised for the instruction every synthetic
 * prompt starts with (short prompts on a fresh server), while a rerun with the same --seed still is.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WarmupPromptsCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MEASURED = 10;

    private static CliRun run(String baseUrl, Path dir, String... args) {
        List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--no-client-warmup",
                "--mean-output-tokens", "2", "--stddev-output-tokens", "0", "--seed", "5",
                "--max-num-completed-requests", Integer.toString(MEASURED), "--results-dir", dir.toString()));
        all.addAll(List.of(args));
        return CliRun.of(Map.of("OPENAI_API_BASE", baseUrl, "OPENAI_API_KEY", "k"), all.toArray(String[]::new));
    }

    /** The prompts the server was sent since {@code from}, in arrival order. */
    private static List<String> prompts(BodyRecordingServer server, int from) {
        List<String> prompts = new ArrayList<>();
        List<JsonNode> bodies = server.bodies();
        for (JsonNode body : bodies.subList(from, bodies.size())) {
            JsonNode messages = body.get("messages");
            prompts.add(messages.get(messages.size() - 1).get("content").asText());
        }
        return prompts;
    }

    /** Runs {@code args} with and without {@code warmup}: the warmup's prompts, then the measured ones of each. */
    private static void assertWarmupSendsItsOwn(Path tmp, List<String> args, List<String> warmup, int warmupCount)
            throws IOException {
        List<String> withWarmup;
        List<String> without;
        List<String> again;
        CliRun warmed;
        CliRun plain;
        CliRun rerun;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            List<String> warmedArgs = new ArrayList<>(args);
            warmedArgs.addAll(warmup);
            warmed = run(server.baseUrl(), tmp.resolve("a"), warmedArgs.toArray(String[]::new));
            withWarmup = prompts(server, 0);
            plain = run(server.baseUrl(), tmp.resolve("b"), args.toArray(String[]::new));
            without = prompts(server, withWarmup.size());
            rerun = run(server.baseUrl(), tmp.resolve("c"), warmedArgs.toArray(String[]::new));
            again = prompts(server, withWarmup.size() + without.size());
        }
        assertEquals(0, warmed.exitCode(), warmed::toString);
        assertEquals(0, plain.exitCode(), plain::toString);
        assertEquals(0, rerun.exitCode(), rerun::toString);
        assertEquals(warmupCount + MEASURED, withWarmup.size(), warmed::toString);
        List<String> warmupPrompts = withWarmup.subList(0, warmupCount);
        List<String> measured = withWarmup.subList(warmupCount, withWarmup.size());
        // the measured requests are the plain run's, in its order (one in flight: sent in order)
        assertEquals(MEASURED, without.size());
        assertEquals(without, measured);
        // the warmup's are its own: none measured, none twice
        Set<String> overlap = new HashSet<>(warmupPrompts);
        overlap.retainAll(measured);
        assertEquals(Set.of(), overlap, "measured requests resent the warmup's prompts");
        assertEquals(warmupCount, new HashSet<>(warmupPrompts).size(), "a warmup prompt was sent twice");
        // the same --seed sends the same warmup and measurement again
        assertEquals(withWarmup, again);
    }

    private static final List<String> SYNTHETIC = List.of("--mean-input-tokens", "200", "--stddev-input-tokens",
            "0");

    @Test
    void aClosedLoopsWarmupRequestsSendPromptsOfTheirOwn(@TempDir Path tmp) throws IOException {
        List<String> args = new ArrayList<>(SYNTHETIC);
        args.addAll(List.of("--num-concurrent-requests", "1"));
        assertWarmupSendsItsOwn(tmp, args, List.of("--warmup-requests", "5"), 5);
    }

    @Test
    void anOpenLoopsWarmupDurationSendsPromptsOfItsOwn(@TempDir Path tmp) throws IOException {
        // constant arrivals every 50 ms: those at 0-450 ms are the warmup's 10
        List<String> args = new ArrayList<>(SYNTHETIC);
        args.addAll(List.of("--request-rate", "20", "--arrival", "constant", "--max-concurrency", "1"));
        assertWarmupSendsItsOwn(tmp, args, List.of("--warmup-duration", "0.5"), 10);
    }

    @Test
    void aFixedWorkloadsWarmupCyclesThroughIt(@TempDir Path tmp) throws IOException {
        List<String> sent;
        CliRun run;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            run = run(server.baseUrl(), tmp, "--prompt", "Tell me a story", "--max-tokens", "2",
                    "--num-concurrent-requests", "1", "--warmup-requests", "3");
            sent = prompts(server, 0);
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals(3 + MEASURED, sent.size());
        assertEquals(Set.of("Tell me a story"), new HashSet<>(sent));
    }

    private static JsonNode summary(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return JSON.readTree(files.filter(p -> p.toString().endsWith("_llmperf4j_summary.json")).findFirst()
                    .orElseThrow().toFile());
        }
    }

    private static CliRun onSimulator(SimulatedServer server, Path dir, int inputTokens) {
        return run(server.baseUrl(), dir, "--mean-input-tokens", Integer.toString(inputTokens),
                "--stddev-input-tokens", "0", "--num-concurrent-requests", "1", "--max-num-completed-requests", "40");
    }

    private static SimulatedServer simulator() {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ZERO)
                .interTokenDelay(Duration.ZERO).build());
    }

    @Test
    void theInstructionEveryPromptStartsWithIsNoEarlierRun(@TempDir Path tmp) throws IOException {
        // 40-token prompts (about 37 by the simulator's count, two blocks of 16 cacheable): llmperf's instruction
        // (about 27 tokens) fills the first block, which the cache serves to every request after the first, and the
        // second too when the prompt's first corpus line (one of 84) was sent before: over half of a fresh
        // server's prompt tokens, all of it the start the prompts share by design (this was warned, blaming an
        // earlier run with the same --seed)
        CliRun fresh;
        try (SimulatedServer server = simulator()) {
            fresh = onSimulator(server, tmp, 40);
        }
        assertEquals(0, fresh.exitCode(), fresh::toString);
        double hitRate = summary(tmp).get("sessions").get("prefix_cache_hit_rate").asDouble();
        assertTrue(hitRate > 0.5, "cached on a fresh server: " + hitRate);
        assertFalse(fresh.out().contains("PREFIX_CACHE_REUSED"), fresh::toString);
    }

    @Test
    void aRerunWithTheSameSeedIsStillWarned(@TempDir Path tmp) throws IOException {
        // 80-token prompts: the rerun finds every whole block cached, most of them past the instruction
        CliRun first;
        CliRun again;
        try (SimulatedServer server = simulator()) {
            first = onSimulator(server, tmp.resolve("a"), 80);
            again = onSimulator(server, tmp.resolve("b"), 80);
        }
        assertEquals(0, first.exitCode(), first::toString);
        assertFalse(first.out().contains("PREFIX_CACHE_REUSED"), first::toString);
        assertEquals(0, again.exitCode(), again::toString);
        assertTrue(again.out().contains("came from the server's prefix cache, though this workload's prompts do not "
                + "share prefixes by design: they were sent to this server before, by an earlier run with the same "
                + "--seed"), again::toString);
    }
}
