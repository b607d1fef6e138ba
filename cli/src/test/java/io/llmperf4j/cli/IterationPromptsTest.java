package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With --iterations every request of every iteration and fork sends a synthetic prompt of its own (before, each fork
 * looped over --max-num-completed-requests prompts, and from the second pass on a prefix cache served them), the
 * same sequence for the same --seed, starting with the plain run's prompts; a fixed workload is still sent in a
 * loop, and stderr says so. Checked on the wire of a server that keeps every body; a rerun with the same --seed is
 * warned PREFIX_CACHE_REUSED against the simulator's prefix cache.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IterationPromptsTest {

    private static final String FIXED_LINE = "llmperf4j: iterations: --prompt is a fixed set of 4 requests, sent in a "
            + "loop for as long as each fork runs: once a fork has sent them all, the server's prefix cache can serve "
            + "every prompt again and TTFT times a cached prefill (synthetic prompts, the default workload, are drawn "
            + "fresh for every request)";

    private static CliRun run(BodyRecordingServer server, Path dir, String... args) {
        List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--no-client-warmup",
                "--max-num-completed-requests", "4", "--mean-output-tokens", "2", "--stddev-output-tokens", "0",
                "--seed", "5", "--results-dir", dir.toString()));
        all.addAll(List.of(args));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                all.toArray(String[]::new));
    }

    @Test
    void everyRequestOfEveryIterationAndForkSendsAPromptOfItsOwn(@TempDir Path tmp) throws IOException {
        List<String> sent;
        CliRun run;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            run = run(server, tmp.resolve("a"), "--mean-input-tokens", "200", "--stddev-input-tokens", "0",
                    "--num-concurrent-requests", "2", "--iterations", "2", "--warmup-iterations", "1",
                    "--iteration-time", "0.5", "--forks", "2");
            sent = BodyRecordingServer.prompts(server.bodies());
        }
        assertEquals(0, run.exitCode(), run::toString);
        // many times the 4 prompts a fork looped over before, none twice
        assertTrue(sent.size() > 40, "sent " + sent.size());
        assertEquals(sent.size(), new HashSet<>(sent).size(), "a prompt was sent twice");
        assertFalse(run.err().contains("llmperf4j: iterations:"), run::toString);
        assertFalse(run.err().contains("llmperf4j: prompts:"), run::toString);
    }

    @Test
    void theSameSeedSendsTheSameSequenceStartingWithThePlainRunsPrompts(@TempDir Path tmp) throws IOException {
        String[] iterations = {"--mean-input-tokens", "200", "--stddev-input-tokens", "0",
                "--num-concurrent-requests", "1", "--iterations", "1", "--warmup-iterations", "0",
                "--iteration-time", "1.5"};
        List<String> first;
        List<String> again;
        List<String> plain;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            assertEquals(0, run(server, tmp.resolve("a"), iterations).exitCode());
            first = BodyRecordingServer.prompts(server.bodies());
            server.bodies.clear();
            CliRun second = run(server, tmp.resolve("b"), iterations);
            assertEquals(0, second.exitCode(), second::toString);
            // one measured iteration: the summary table says why its Error column is blank
            assertTrue(second.out().contains("\n(one measured iteration: no interval, so no Error; the ± error needs "
                    + "2 scores or more: --iterations 2 or more, or --forks 2 or more)\n"), second::toString);
            again = BodyRecordingServer.prompts(server.bodies());
            server.bodies.clear();
            CliRun plainRun = run(server, tmp.resolve("c"), "--mean-input-tokens", "200", "--stddev-input-tokens",
                    "0", "--num-concurrent-requests", "1");
            assertEquals(0, plainRun.exitCode(), plainRun::toString);
            plain = BodyRecordingServer.prompts(server.bodies());
        }
        // the first batch of 4 and well beyond it
        assertTrue(first.size() > 12 && again.size() > 12, first.size() + ", " + again.size());
        assertEquals(first.subList(0, 12), again.subList(0, 12));
        assertEquals(4, plain.size());
        assertEquals(plain, first.subList(0, 4));
    }

    @Test
    void aRerunWithTheSameSeedIsWarnedForItsCachedPrompts(@TempDir Path tmp) {
        // the simulator's prefix cache: a run finds none of its own prompts there; a shorter rerun with the same
        // --seed sends the start of the same sequence and finds it there, and iterations (no summary to carry the
        // warning) say so after the level's result
        String[] args = {"token-benchmark", "--model", "m", "--no-client-warmup", "--max-num-completed-requests",
                "4", "--mean-input-tokens", "200", "--stddev-input-tokens", "0", "--mean-output-tokens", "2",
                "--stddev-output-tokens", "0", "--num-concurrent-requests", "2", "--iterations", "2",
                "--warmup-iterations", "0", "--seed", "5", "--iteration-time", "1", "--results-dir", ""};
        CliRun first;
        CliRun again;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ZERO).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            args[args.length - 1] = tmp.resolve("a").toString();
            first = CliRun.of(env, args);
            args[args.length - 1] = tmp.resolve("b").toString();
            args[args.length - 3] = "0.2";
            again = CliRun.of(env, args);
        }
        assertEquals(0, first.exitCode(), first::toString);
        assertFalse(first.out().contains("PREFIX_CACHE_REUSED"), first::toString);
        assertEquals(0, again.exitCode(), again::toString);
        assertTrue(Pattern.compile("\\(assumes normal distribution\\)\\n\\nWarnings:\\n  \\[PREFIX_CACHE_REUSED\\] "
                + "\\d+\\.\\d % of the prompt tokens \\(\\d+ of \\d+\\) came from the server's prefix cache, though this "
                + "workload's prompts do not share prefixes by design: they were sent to this server before, by an "
                + "earlier run with the same --seed").matcher(again.out()).find(), again::toString);
    }

    @Test
    void aFixedWorkloadIsSentInALoopAndSaidSo(@TempDir Path tmp) throws IOException {
        List<String> sent;
        CliRun run;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            run = run(server, tmp.resolve("a"), "--prompt", "Tell me a story", "--max-tokens", "2",
                    "--num-concurrent-requests", "2", "--iterations", "1", "--warmup-iterations", "0",
                    "--iteration-time", "0.5");
            sent = BodyRecordingServer.prompts(server.bodies());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains(FIXED_LINE + "\n"), run::toString);
        assertTrue(sent.size() > 8, "sent " + sent.size());
        assertEquals(List.of("Tell me a story"), List.copyOf(new HashSet<>(sent)));
    }
}
