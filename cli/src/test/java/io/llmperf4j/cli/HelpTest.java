package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command's help renders cleanly (no picocli warning, no "llmperf4j:" prefix, every option under a section
 * heading), every command has --version, and each alias is the same option as the name it stands for.
 */
class HelpTest {
    private static final PrintStream SINK = new PrintStream(OutputStream.nullOutputStream());

    /** Every command path under the root ("" for the root itself), e.g. ["token-benchmark"]. */
    private static List<List<String>> commandPaths() {
        List<List<String>> paths = new ArrayList<>();
        collect(Main.commandLine(new CliContext(Map.of(), SINK, SINK)), new ArrayList<>(), paths);
        return paths;
    }

    private static void collect(CommandLine cl, List<String> path, List<List<String>> paths) {
        paths.add(List.copyOf(path));
        cl.getSubcommands().forEach((name, sub) -> {
            if (sub.getCommandSpec().name().equals(name)) { // aliases of a command are the same command
                List<String> child = new ArrayList<>(path);
                child.add(name);
                collect(sub, child, paths);
            }
        });
    }

    private static CommandSpec spec(List<String> path) {
        CommandLine cl = Main.commandLine(new CliContext(Map.of(), SINK, SINK));
        for (String name : path) cl = cl.getSubcommands().get(name);
        return cl.getCommandSpec();
    }

    @Test
    void everyHelpRendersCleanlyWithEveryOptionInASection() {
        List<List<String>> paths = commandPaths();
        assertTrue(paths.size() >= 10, "root, eight commands, help, generate-completion: " + paths);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            PrintStream realErr = System.err;
            ByteArrayOutputStream picocliErr = new ByteArrayOutputStream(); // picocli warns on System.err
            CliRun help;
            try {
                System.setErr(new PrintStream(picocliErr, true, StandardCharsets.UTF_8));
                help = CliRun.of(Map.of(), args.toArray(String[]::new));
            } finally {
                System.setErr(realErr);
            }
            String where = String.join(" ", args) + ":\n" + help;
            assertEquals(0, help.exitCode(), where);
            assertEquals("", help.err(), where);
            assertFalse(picocliErr.toString(StandardCharsets.UTF_8).contains("WARN"), where + picocliErr);
            assertFalse(help.out().contains("WARN"), where);
            assertFalse(help.out().contains("llmperf4j:"), "the section says whose flag it is: " + where);
            List<String> lines = help.out().lines().toList();
            for (OptionSpec option : spec(path).options()) {
                if (option.hidden()) continue;
                String name = option.names()[0];
                int line = lineOf(lines, name);
                assertTrue(line >= 0, name + " is listed: " + where);
                assertNotNull(headingAbove(lines, line), name + " is under a section heading: " + where);
            }
        }
    }

    /** The line listing {@code name} as an option (not a mention in a description). */
    private static int lineOf(List<String> lines, String name) {
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            for (String listed : l.split("[=\\s\\[]", 2)[0].isEmpty() ? new String[0] : l.split(", ")) {
                String flag = listed.split("[=\\s\\[]", 2)[0];
                if (flag.equals(name)) return i;
                if (!flag.startsWith("-")) break;
            }
        }
        return -1;
    }

    /** The nearest heading above an option line: an unindented line ending with ':', below the usage line. */
    private static String headingAbove(List<String> lines, int line) {
        for (int i = line - 1; i >= 0; i--) {
            String l = lines.get(i);
            if (l.startsWith("Usage:")) return null;
            if (!l.isEmpty() && !Character.isWhitespace(l.charAt(0)) && l.endsWith(":")) return l;
        }
        return null;
    }

    @Test
    void tokenBenchmarkListsLlmperfsFlagsFirstThenOursByTopic() {
        String help = CliRun.of(Map.of(), "token-benchmark", "--help").out();
        List<String> headings = help.lines().filter(l -> !l.isEmpty() && !Character.isWhitespace(l.charAt(0))
                && l.endsWith(":") && !l.startsWith("Usage")).toList();
        assertTrue(headings.get(0).startsWith("llmperf's flags"), headings.toString());
        assertTrue(headings.containsAll(List.of("Workload: prompts and their lengths:", "Connection:",
                "Results and checks:", "General:", "Exit codes:")), headings.toString());
        String llmperfSection = help.substring(help.indexOf("llmperf's flags"), help.indexOf("Workload:"));
        for (String flag : List.of("--model", "--mean-input-tokens", "--stddev-input-tokens", "--mean-output-tokens",
                "--stddev-output-tokens", "--num-concurrent-requests", "--timeout", "--max-num-completed-requests",
                "--additional-sampling-params", "--results-dir", "--llm-api", "--metadata")) {
            assertTrue(llmperfSection.contains(flag), flag + " in llmperf's section:\n" + llmperfSection);
        }
        assertFalse(llmperfSection.contains("--overwrite"), "not llmperf's");
        assertTrue(help.contains("--num-concurrent-requests, --concurrency=N"), "declared order: " + help);
    }

    @Test
    void serveListsEveryEndpoint() {
        String help = CliRun.of(Map.of(), "serve", "--help").out();
        for (String path : List.of("/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/embeddings",
                "/v1/models")) {
            assertTrue(help.contains(path), path + ":\n" + help);
        }
    }

    @Test
    void compareHelpShowsItsPercentSigns() {
        String help = CliRun.of(Map.of(), "compare", "--help").out();
        assertTrue(help.contains("95 % bootstrap"), help);
        assertTrue(help.contains("'ttft_p90>+10%,itl_p90>+10%,output_throughput<-5%'"), help);
    }

    @Test
    void everyCommandHasVersion() {
        for (List<String> path : commandPaths()) {
            if (path.equals(List.of("help"))) continue; // 'help' takes a command name, not options
            List<String> args = new ArrayList<>(path);
            args.add("--version");
            CliRun run = CliRun.of(Map.of(), args.toArray(String[]::new));
            assertEquals(0, run.exitCode(), args + ": " + run);
            assertTrue(run.out().startsWith("llmperf4j " + VersionProvider.version() + "\n"), args + ": " + run);
        }
    }

    /** command, the name we use, the alias kept for it, a value. */
    @ParameterizedTest
    @CsvSource({
        "token-benchmark, --num-concurrent-requests, --concurrency, 7",
        "correctness, --num-concurrent-requests, --concurrency, 7",
        "calibrate, --concurrency-sweep, --concurrency, 7",
        "calibrate, --warmup-duration, --warmup-s, 1.5",
        "serve, --inter-token-ms, --inter-token-delay-ms, 3.5",
    })
    void aliasesAreTheSameOption(String command, String name, String alias, String value) {
        CommandLine root = Main.commandLine(new CliContext(Map.of(), SINK, SINK));
        CommandSpec spec = root.getSubcommands().get(command).getCommandSpec();
        OptionSpec option = spec.findOption(name);
        assertNotNull(option, name);
        assertSame(option, spec.findOption(alias), alias + " is " + name);
        assertEquals(name, option.names()[0], "the name we use comes first in the help");
        Object byName = parsed(command, name, value);
        assertEquals(byName, parsed(command, alias, value));
        assertFalse(String.valueOf(byName).equals(String.valueOf(option.defaultValue())), "not the default");
    }

    private static Object parsed(String command, String option, String value) {
        CommandLine root = Main.commandLine(new CliContext(Map.of(), SINK, SINK));
        CommandLine.ParseResult result = root.parseArgs(command, option, value);
        return result.subcommand().matchedOption(option).getValue();
    }

    @Test
    void calibrateTakesTheNewNames() {
        CliRun.of(Map.of(), "calibrate", "--concurrency-sweep", "1,0").assertOneErrorLine(ExitCodes.USAGE,
                "--concurrency-sweep ([1, 0]) must list numbers >= 1");
        CliRun.of(Map.of(), "calibrate", "--warmup-s", "-1").assertOneErrorLine(ExitCodes.USAGE,
                "--warmup-duration (-1.0) must be >= 0");
    }

    @Test
    void argumentsComeFromAnAtFile(@TempDir Path dir) throws IOException {
        Path args = dir.resolve("bench.args");
        Files.writeString(args, """
                # one flag per line; quotes keep spaces
                --model my-model
                --concurrency 3
                --additional-sampling-params '{"temperature": 0.7}'
                --prompt "Say hello to the team"
                """);
        CommandLine root = Main.commandLine(new CliContext(Map.of(), SINK, SINK));
        CommandLine.ParseResult parsed = root.parseArgs("token-benchmark", "@" + args, "--max-tokens", "8")
                .subcommand();
        assertEquals("my-model", parsed.matchedOptionValue("--model", null));
        assertEquals(3, (int) parsed.matchedOptionValue("--num-concurrent-requests", 0));
        assertEquals("{\"temperature\": 0.7}", parsed.matchedOptionValue("--additional-sampling-params", null));
        assertEquals("Say hello to the team", parsed.matchedOptionValue("--prompt", null));
        assertEquals(8, (int) parsed.matchedOptionValue("--max-tokens", 0));
    }

    @Test
    void completionScriptCoversEveryCommandAndOption() {
        CliRun run = CliRun.of(Map.of(), "generate-completion");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().startsWith("#!/usr/bin/env bash"), run::toString);
        for (String word : List.of("token-benchmark", "correctness", "serve", "compare", "--concurrency-sweep",
                "--num-concurrent-requests", "--concurrency", "--output-format", "--inter-token-ms")) {
            assertTrue(run.out().contains(word), word);
        }
        assertTrue(Arrays.stream(run.out().split("\n")).noneMatch(l -> l.contains("llmperf4j:")));
    }
}
