package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Another tool's habits and typos on the real command line: picocli's error line, then one hint a line, exit 2 and
 * nothing on stdout. Nothing is run (the arguments fail to parse).
 */
class UnmatchedArgumentHintsTest {

    private static List<String> errLines(CliRun run) {
        assertEquals(2, run.exitCode(), run::toString);
        assertEquals("", run.out(), run::toString);
        return run.err().lines().filter(l -> !l.isBlank()).toList();
    }

    @Test
    void aMissingLetterSuggestsTheOption() {
        // a letter missing inside the name (one missing at its end is a prefix: argparse's abbreviation, accepted)
        List<String> lines = errLines(CliRun.of(Map.of(), "token-benchmark", "--max-num-complted-requests", "4"));
        assertEquals(List.of("llmperf4j: Unknown option: '--max-num-complted-requests' (see 'llmperf4j "
                + "token-benchmark --help')", "  --max-num-complted-requests: did you mean "
                + "--max-num-completed-requests?"), lines);
    }

    @Test
    void underscoresMapToDashes() {
        List<String> lines = errLines(CliRun.of(Map.of(), "token-benchmark", "--max_num_completed_requests", "4",
                "--num_concurrent_requests=2"));
        assertEquals(List.of("  --max_num_completed_requests: did you mean --max-num-completed-requests?",
                "  --num_concurrent_requests: did you mean --num-concurrent-requests?"), lines.subList(1, 3));
    }

    @Test
    void aCommandWithUnderscoresOrATypoSuggestsTheCommand() {
        List<String> lines = errLines(CliRun.of(Map.of(), "token_benchmark", "--model", "m"));
        assertEquals(List.of("llmperf4j: Unmatched arguments from index 0: 'token_benchmark', '--model', 'm' (see "
                + "'llmperf4j --help')", "  token_benchmark: did you mean token-benchmark?"), lines);
        assertEquals(List.of("  tokn-benchmark: did you mean token-benchmark?"),
                errLines(CliRun.of(Map.of(), "tokn-benchmark")).subList(1, 2));
    }

    @Test
    void vllmBenchmarkFlagsGetLlmperf4jsSpellingOneALine() {
        List<String> lines = errLines(CliRun.of(Map.of(), "token-benchmark", "--backend", "vllm", "--base-url",
                "http://host:8000", "--num-prompts", "10", "--random-input-len", "512", "--random-output-len", "128",
                "--max-concurrency", "8"));
        assertTrue(lines.get(0).startsWith("llmperf4j: Unknown options: '--backend', '--base-url', "), lines::toString);
        assertEquals(List.of(
                "  --backend (vLLM's benchmark): use --llm-api openai (vLLM serves the OpenAI API; the default)",
                "  --base-url (vLLM's benchmark): set OPENAI_API_BASE=http://host:8000/v1 (and OPENAI_API_KEY) instead",
                "  --num-prompts (vLLM's benchmark): use --max-num-completed-requests 10",
                "  --random-input-len (vLLM's benchmark): use --mean-input-tokens 512 --stddev-input-tokens 0",
                "  --random-output-len (vLLM's benchmark): use --mean-output-tokens 128 --stddev-output-tokens 0"),
                lines.subList(1, lines.size()));
    }

    @Test
    void anOptionLikeNoOtherGetsTheErrorAlone() {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--frobnicate");
        run.assertOneErrorLine(2, "Unknown option: '--frobnicate'");
    }
}
