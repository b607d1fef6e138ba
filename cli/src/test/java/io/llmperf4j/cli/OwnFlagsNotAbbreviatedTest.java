package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * argparse's abbreviations stand only for llmperf's own flags: {@code --rate 2} was taken for {@code --rate-sweep 2}
 * (a one-level sweep with a sweep's verdicts) where a user of llmperf or vLLM means one rate. Such prefixes are
 * refused with what they may have meant, and correctness says it has no length flags, as llmperf's script.
 */
class OwnFlagsNotAbbreviatedTest {

    @Test
    void aPrefixOfLlmperf4jsOwnRateSweepIsRefusedNamingBothRateFlags() {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--rate", "2", "--max-num-completed-requests", "1");
        assertEquals(ExitCodes.USAGE, run.exitCode(), run::toString);
        assertTrue(run.err().contains("Unknown option: '--rate'"), run::toString);
        assertTrue(run.err().contains("--rate: one rate is --request-rate R, several are --rate-sweep R1,R2,..."),
                run::toString);
        assertEquals("", run.out(), run::toString);
    }

    @Test
    void aPrefixOfAnotherOwnFlagIsRefusedWithTheFlagItStartsAndTheRule() {
        CliRun run = CliRun.of(Map.of(), "token-benchmark", "--concurrency-sw", "1,2");
        assertEquals(ExitCodes.USAGE, run.exitCode(), run::toString);
        assertTrue(run.err().contains("--concurrency-sw: did you mean --concurrency-sweep? (only llmperf's own flags "
                + "may be abbreviated)"), run::toString);
    }

    @Test
    void correctnessRefusesALengthFlagAndSaysItHasNone() {
        // the error line, then the hint on its own line, as every unknown option's suggestions follow it
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k"),
                "correctness", "--model", "m", "--mean-input-tokens", "550");
        assertEquals(ExitCodes.USAGE, run.exitCode(), run::toString);
        assertEquals(List.of("llmperf4j: Unknown option: '--mean-input-tokens' (see 'llmperf4j correctness "
                        + "--help')", "  --mean-input-tokens: correctness draws no lengths and sends no max_tokens, as "
                        + "llmperf's llm_correctness.py (--mean-input-tokens is token-benchmark's)"),
                run.err().lines().filter(l -> !l.isBlank()).toList(), run::toString);
        assertEquals("", run.out(), run::toString);
    }

    @Test
    void correctnessSaysItHasNoLengthFlags() {
        CliRun run = CliRun.of(Map.of(), "correctness", "--mean-out", "5");
        assertEquals(ExitCodes.USAGE, run.exitCode(), run::toString);
        assertTrue(run.err().contains("--mean-out: correctness draws no lengths and sends no max_tokens, as llmperf's "
                + "llm_correctness.py (--mean-output-tokens is token-benchmark's)"), run::toString);
    }
}
