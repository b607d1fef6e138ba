package io.llmperf4j.cli;

import io.llmperf4j.tokenize.TokenizerOptions;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * llmperf's "minimum number of input tokens" line for a mean input under 40 states the real prompt prefix's length
 * with the run's tokenizer (llmperf's 41 is stale), and a length that cannot be drawn gets only the error, which names
 * the same length: the QA pass saw "... is 41 ..." followed by "no input length >= 27 tokens".
 */
class MinimumInputTokensLineTest {
    /** The prefix of a prompt with max_tokens 150 (--mean-output-tokens 150 --stddev-output-tokens 0), llama-2. */
    private static final int PREFIX = PromptSynthesizer.promptPrefixTokens(
            Tokenizers.resolve("llama-2", TokenizerOptions.defaults()), 150);

    @Test
    void aShortMeanThatCanBeDrawnGetsLlmperfsLineWithTheRealPrefixLength(@TempDir Path dir) {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--no-client-warmup", "--model", "m", "--simulator",
                "--max-num-completed-requests", "2", "--num-concurrent-requests", "2",
                "--mean-input-tokens", Integer.toString(PREFIX + 5), "--stddev-input-tokens", "0",
                "--mean-output-tokens", "150", "--stddev-output-tokens", "0", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(PREFIX > 20 && PREFIX < 40, "the prefix is about 27 tokens: " + PREFIX);
        assertTrue(run.err().contains("the minimum number of input tokens that will be sent is " + PREFIX
                + " because of the prompting logic right now\n"), run::toString);
        assertFalse(run.err().contains(" is 41 "), run::toString);
    }

    @Test
    void aMeanBelowThePrefixGetsOnlyTheErrorNamingTheSameLength(@TempDir Path dir) {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--model", "m", "--simulator", "--max-num-completed-requests", "2",
                "--mean-input-tokens", "10", "--stddev-input-tokens", "0",
                "--mean-output-tokens", "150", "--stddev-output-tokens", "0", "--results-dir", dir.toString());
        run.assertOneErrorLine(2, "no input length >= " + PREFIX + " tokens (the prompt prefix)");
    }
}
