package io.llmperf4j.cli;

import io.llmperf4j.distributed.HazelcastLogGate;
import io.llmperf4j.run.FolderInUseException;
import io.llmperf4j.run.InvalidRequestException;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** Entry point: {@code llmperf4j <command>}. A bare call prints the usage on stderr and exits 2 (usage). */
@Command(name = "llmperf4j",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Benchmarks LLM serving endpoints (OpenAI-compatible): llmperf's token benchmark and "
                + "correctness test in Java.",
        subcommands = {TokenBenchmarkCommand.class, CorrectnessCommand.class, ServeCommand.class,
            DoctorCommand.class, CompareCommand.class, ReportCommand.class, WorkerCommand.class, CalibrateCommand.class,
            TraceStatsCommand.class,
            CommandLine.HelpCommand.class, AutoComplete.GenerateCompletion.class},
        exitCodeListHeading = "%nExit codes:%n")
public final class Main implements Callable<Integer> {
    private static final String NETTY_JFR = "io.netty.jfr.enabled";

    @Spec
    CommandSpec spec;

    /** No command: the usage, as for any other usage error (a script that forgot its command fails). */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    public static void main(String[] args) {
        // Netty 4.2 registers its JFR events (about 130 JDK classes and generated handlers) when JFR is available,
        // whether or not anything records; a -Dio.netty.jfr.enabled=true on the command line still wins
        if (System.getProperty(NETTY_JFR) == null) System.setProperty(NETTY_JFR, "false");
        System.exit(execute(CliContext.system(), args));
    }

    /** Runs one command line and returns its exit code; never throws, never exits the JVM. */
    static int execute(CliContext context, String... args) {
        boolean debug = Arrays.asList(args).contains("--debug");
        HazelcastLogGate.show(debug); // a cluster's library lines are for --debug only
        CommandLine commandLine = commandLine(context);
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> onFailure(e, cmd, debug));
        try {
            String[] parsed;
            try {
                parsed = LastOccurrenceWins.apply(commandLine, () -> commandLine(context), args);
            } catch (ParameterException ambiguous) { // an abbreviation several options start with
                return onBadParameters(ambiguous, args);
            }
            if (parsed != args) {
                commandLine.setExpandAtFiles(false); // already expanded
            }
            return commandLine.execute(parsed);
        } catch (Throwable fatal) { // picocli handles Exceptions above; an Error (a missing class, OOM) lands here
            return onFailure(fatal, commandLine, debug);
        }
    }

    /** The command tree with its help layout, streams and parsing rules; {@link #execute} runs it. */
    static CommandLine commandLine(CliContext context) {
        CommandLine commandLine = new CommandLine(new Main(), new ContextFactory(context));
        HelpLayout.apply(commandLine, exitCodes());
        commandLine.getCommandSpec().usageMessage().exitCodeList(exitCodes());
        commandLine.setUsageHelpWidth(120); // the descriptions are written for 120 columns
        commandLine.setOut(new PrintWriter(context.out(), true));
        commandLine.setErr(new PrintWriter(context.err(), true));
        commandLine.setOverwrittenOptionsAllowed(true); // argparse semantics: the last occurrence wins
        commandLine.setParameterExceptionHandler(Main::onBadParameters);
        return commandLine;
    }

    /** Every command's help lists the same exit codes, from one place. */
    private static Map<String, String> exitCodes() {
        Map<String, String> codes = new LinkedHashMap<>();
        for (String item : ExitCodes.HELP_LIST) {
            int colon = item.indexOf(':');
            codes.put(item.substring(0, colon), item.substring(colon + 1));
        }
        return codes;
    }

    private static int onBadParameters(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("llmperf4j: " + ParameterErrorText.of(e) + " (see '" + cmd.getCommandSpec().qualifiedName()
                + " --help')");
        for (String hint : UnmatchedArgumentHints.of(e)) err.println("  " + hint);
        return ExitCodes.USAGE;
    }

    private static int onFailure(Throwable e, CommandLine cmd, boolean debug) {
        PrintWriter err = cmd.getErr();
        if (debug) {
            e.printStackTrace(err);
        }
        if (e instanceof InvalidRequestException) { // UsageException here, or a RunRequest the runner refused
            err.println("llmperf4j: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        if (e instanceof FolderInUseException) { // expected, and its message says what to do: no --debug pointer
            err.println("llmperf4j: " + e.getMessage());
            return ExitCodes.FAILURE;
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        err.println("llmperf4j: error: " + message + (debug ? "" : " (run with --debug for details)"));
        return ExitCodes.FAILURE;
    }

    /** Creates commands with the {@link CliContext} when they accept one. */
    private record ContextFactory(CliContext context) implements IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            try {
                Constructor<K> withContext = type.getDeclaredConstructor(CliContext.class);
                return withContext.newInstance(context);
            } catch (NoSuchMethodException e) {
                return CommandLine.defaultFactory().create(type);
            }
        }
    }
}
