package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A repeated option keeps its last value and loses nothing else of its help section (argparse's rule). */
class LastOccurrenceWinsTest {
    private static final PrintStream SINK = new PrintStream(OutputStream.nullOutputStream());
    private static final CliContext CONTEXT = new CliContext(Map.of(), SINK, SINK);

    private static TokenBenchmarkCommand parse(String... args) {
        CommandLine root = Main.commandLine(CONTEXT);
        String[] kept = LastOccurrenceWins.apply(root, () -> Main.commandLine(CONTEXT), args);
        if (kept != args) root.setExpandAtFiles(false);
        root.parseArgs(kept);
        return (TokenBenchmarkCommand) root.getSubcommands().get("token-benchmark").getCommand();
    }

    @Test
    void theLastValueWinsAndTheSectionKeepsTheRest() {
        TokenBenchmarkCommand c = parse("token-benchmark", "--model", "m", "--timeout", "5", "--results-dir", "d",
                "--concurrency", "2", "--timeout=6", "--num-concurrent-requests", "3", "--header", "A: 1",
                "--header", "B: 2", "--no-stream", "--no-stream");
        assertEquals("m", c.llmperf.common.model);
        assertEquals(6, c.llmperf.common.timeoutSeconds);
        assertEquals("d", c.llmperf.common.resultsDir);
        assertEquals(3, c.llmperf.common.numConcurrentRequests, "an alias is the same option");
        assertEquals(List.of("A: 1", "B: 2"), c.connection.access.headers, "repeatable options keep every value");
        assertEquals(true, c.requests.noStream);
    }

    @Test
    void argfilesCountLikeTheOtherArguments(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("a.args");
        Files.writeString(file, "--model m\n--timeout 5\n");
        TokenBenchmarkCommand c = parse("token-benchmark", "@" + file, "--timeout", "7");
        assertEquals("m", c.llmperf.common.model);
        assertEquals(7, c.llmperf.common.timeoutSeconds);
    }

    @Test
    void argumentsWithoutRepeatsAreUntouched() {
        String[] args = {"token-benchmark", "--model", "m", "--server-metrics", "--timeout", "5"};
        assertArrayEquals(args, LastOccurrenceWins.apply(Main.commandLine(CONTEXT), () -> null, args));
    }
}
