package io.llmperf4j.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One in-process run of the command line, with its exit code and captured output. */
record CliRun(int exitCode, String out, String err) {
    static CliRun of(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            int code = Main.execute(new CliContext(env, outStream, errStream), args);
            return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }

    /**
     * The bad-input contract: the exit code, stderr exactly one {@code llmperf4j:} line that contains
     * {@code expected}, no stack trace, nothing on stdout.
     */
    void assertOneErrorLine(int expectedExitCode, String expected) {
        assertEquals(expectedExitCode, exitCode, this::toString);
        List<String> lines = err.lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), this::toString);
        assertTrue(lines.get(0).startsWith("llmperf4j: "), this::toString);
        assertTrue(lines.get(0).contains(expected), this::toString);
        assertFalse(err.contains("\tat "), () -> "no stack trace: " + this);
        assertEquals("", out, this::toString);
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
}
