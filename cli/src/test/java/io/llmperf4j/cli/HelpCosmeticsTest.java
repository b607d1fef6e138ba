package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a new user meets first: every command's help names option values by what they are (SEED, MS, RATE), never by
 * the Java field behind them (faultRate); a bare {@code llmperf4j} is a usage error; token-benchmark's help ends with
 * runnable examples.
 */
class HelpCosmeticsTest {
    /** A placeholder picocli made from a field name: lower camel case between angle brackets. */
    private static final Pattern FIELD_PLACEHOLDER = Pattern.compile("=<[a-z][A-Za-z]*>");

    @ParameterizedTest
    @ValueSource(strings = {"token-benchmark", "correctness", "serve", "compare", "report", "calibrate", "worker",
        "trace-stats", "doctor"})
    void optionValuesHaveLabelsNotFieldNames(String command) {
        CliRun run = CliRun.of(Map.of(), command, "--help");
        assertEquals(0, run.exitCode(), run::toString);
        Matcher field = FIELD_PLACEHOLDER.matcher(run.out());
        assertFalse(field.find(), () -> command + " --help shows a field name: " + field.group());
    }

    @Test
    void serveAndCorrectnessNameTheirValues() {
        String serve = CliRun.of(Map.of(), "serve", "--help").out();
        assertTrue(serve.contains("--fault-rate=RATE") && serve.contains("--fault-seed=SEED")
                && serve.contains("--ttft-ms=MS") && serve.contains("--port=PORT"), serve);
        assertTrue(CliRun.of(Map.of(), "correctness", "--help").out().contains("--seed=SEED"));
    }

    @Test
    void noCommandIsAUsageErrorWithTheUsageOnStderr() {
        CliRun run = CliRun.of(Map.of());
        assertEquals(ExitCodes.USAGE, run.exitCode(), run::toString);
        assertEquals("", run.out(), run::toString);
        assertTrue(run.err().startsWith("Usage: llmperf4j [-hV] [COMMAND]"), run::toString);
        assertTrue(run.err().contains("token-benchmark"), run::toString);
    }

    @Test
    void tokenBenchmarkHelpEndsWithExamples() {
        String help = CliRun.of(Map.of(), "token-benchmark", "--help").out();
        String examples = help.substring(help.indexOf("\nExamples:\n"));
        assertTrue(examples.contains("  bin/llmperf4j token-benchmark --results-dir results/first"), help);
        assertTrue(examples.contains("OPENAI_API_BASE=http://localhost:8000/v1 OPENAI_API_KEY=EMPTY bin/llmperf4j "
                + "token-benchmark \\\n    --model meta-llama/Llama-2-7b-chat-hf"), help);
        assertTrue(help.lines().allMatch(l -> l.length() <= 120), "120 columns");
    }
}
