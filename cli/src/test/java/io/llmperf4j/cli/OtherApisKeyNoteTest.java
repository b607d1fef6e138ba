package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * QA (apis): --llm-api anthropic with only OPENAI_API_KEY set ran the simulator with no word of that key. Not refused
 * (a key names no server, and OPENAI_API_KEY is often set for the whole shell), but one note says the key is not
 * read; the other way round too. Nothing with --simulator, the user's own choice.
 */
class OtherApisKeyNoteTest {
    private static final String NOTE = "llmperf4j: note: OPENAI_API_KEY is set, but --llm-api anthropic reads "
            + "ANTHROPIC_API_BASE and ANTHROPIC_API_KEY, so it is not used: with ANTHROPIC_API_BASE unset the embedded "
            + "simulated server answers";

    private static CliRun bench(Map<String, String> env, Path dir, String api, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--llm-api", api,
                "--no-client-warmup", "--max-num-completed-requests", "1", "--num-concurrent-requests", "1",
                "--mean-input-tokens", "60", "--mean-output-tokens", "5", "--stddev-output-tokens", "0",
                "--no-server-metrics", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(env, args.toArray(String[]::new));
    }

    @Test
    void anthropicWithOnlyTheOpenAiKeyRunsTheSimulatorAndSaysTheKeyIsNotRead(@TempDir Path tmp) {
        CliRun run = bench(Map.of("OPENAI_API_KEY", "sk-oai-secret"), tmp.resolve("a"), "anthropic");
        assertEquals(ExitCodes.OK, run.exitCode(), run::toString);
        assertTrue(run.err().contains(NOTE + "\n"), run::toString);
        assertFalse(run.err().contains("sk-oai-secret") || run.out().contains("sk-oai-secret"), "no key printed");
    }

    @Test
    void theDefaultApiWithOnlyTheAnthropicKeySaysSoToo(@TempDir Path tmp) {
        CliRun run = bench(Map.of("ANTHROPIC_API_KEY", "sk-ant-secret"), tmp.resolve("b"), "openai");
        assertEquals(ExitCodes.OK, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: note: ANTHROPIC_API_KEY is set, but --llm-api openai reads "
                + "OPENAI_API_BASE and OPENAI_API_KEY, so it is not used: with OPENAI_API_BASE unset the embedded "
                + "simulated server answers\n"), run::toString);
    }

    @Test
    void noNoteWithSimulatorOrWithoutAnotherKey(@TempDir Path tmp) {
        CliRun chosen = bench(Map.of("OPENAI_API_KEY", "k"), tmp.resolve("c"), "anthropic", "--simulator");
        assertEquals(ExitCodes.OK, chosen.exitCode(), chosen::toString);
        assertFalse(chosen.err().contains("note: OPENAI_API_KEY"), chosen::toString);
        CliRun plain = bench(Map.of(), tmp.resolve("d"), "anthropic");
        assertEquals(ExitCodes.OK, plain.exitCode(), plain::toString);
        assertFalse(plain.err().contains("llmperf4j: note:"), plain::toString);
    }
}
