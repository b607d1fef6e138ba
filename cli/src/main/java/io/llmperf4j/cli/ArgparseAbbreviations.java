package io.llmperf4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * argparse's abbreviations, which llmperf's users type ({@code --max-num 2}, {@code --mean-input 100}), for the
 * commands that stand in for llmperf's scripts: a long option may be given by any prefix of its name that no other
 * option of the command starts with ({@code --name} or {@code --name=value}); a prefix that several start with is
 * refused, naming them. picocli's own abbreviations are not used: they also take non-prefixes ({@code --m-i-t},
 * {@code --result-dir}) and call some of argparse's unique prefixes ambiguous ({@code --max-c}).
 * Only llmperf's own flags are abbreviated: a prefix whose one match is a flag llmperf lacks ({@code --rate} for
 * {@code --rate-sweep}) is left for picocli to refuse, because an llmperf user typing it means something else (one
 * rate) and llmperf4j's flags were never promised argparse's habits. Ambiguity is judged over all of the command's
 * options, as argparse would judge it if llmperf had them.
 */
final class ArgparseAbbreviations {
    /** The commands that parse as llmperf's token_benchmark_ray.py and llm_correctness.py do. */
    static final Set<String> COMMANDS = Set.of("token-benchmark", "correctness");

    /** token_benchmark_ray.py's flags; llm_correctness.py has the same minus the four length flags. */
    static final Set<String> LLMPERF_FLAGS = Set.of("--model", "--mean-input-tokens", "--stddev-input-tokens",
            "--mean-output-tokens", "--stddev-output-tokens", "--num-concurrent-requests", "--timeout",
            "--max-num-completed-requests", "--additional-sampling-params", "--results-dir", "--llm-api",
            "--metadata");

    private ArgparseAbbreviations() {
    }

    /**
     * {@code args} with each abbreviated option of an llmperf command replaced by its full name.
     *
     * @throws CommandLine.ParameterException for a prefix that several of the command's options start with
     */
    static List<String> expand(CommandLine root, List<String> args) {
        CommandSpec spec = root.getCommandSpec();
        List<String> expanded = new ArrayList<>(args.size());
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            expanded.add(arg);
            if (arg.equals("--")) { // the rest are positional
                expanded.addAll(args.subList(i + 1, args.size()));
                break;
            }
            CommandLine sub = spec.subcommands().get(arg);
            if (sub != null) {
                spec = sub.getCommandSpec();
                continue;
            }
            if (!arg.startsWith("--") || arg.length() == 2) continue;
            int eq = arg.indexOf('=');
            String name = eq > 0 ? arg.substring(0, eq) : arg;
            OptionSpec option = spec.findOption(name);
            if (option == null && COMMANDS.contains(spec.name())) {
                option = unique(spec, name);
                if (option != null && !LLMPERF_FLAGS.contains(option.longestName())) option = null;
                if (option != null) {
                    expanded.set(expanded.size() - 1, option.longestName() + (eq > 0 ? arg.substring(eq) : ""));
                }
            }
            // its value is not an option, even when it starts with "--"
            if (option != null && eq < 0 && option.arity().max() > 0 && i + 1 < args.size()
                    && (option.arity().min() > 0 || !args.get(i + 1).startsWith("-"))) {
                expanded.add(args.get(++i));
            }
        }
        return expanded;
    }

    /** The one option of {@code spec} whose long name starts with {@code prefix}; null when none does. */
    private static OptionSpec unique(CommandSpec spec, String prefix) {
        Set<OptionSpec> matches = new LinkedHashSet<>();
        List<String> names = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            if (option.hidden()) continue;
            for (String name : option.names()) {
                if (name.startsWith("--") && name.startsWith(prefix)) {
                    matches.add(option);
                    names.add(name);
                }
            }
        }
        if (matches.size() > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "ambiguous option: " + prefix
                    + " could match " + String.join(", ", names));
        }
        return matches.isEmpty() ? null : matches.iterator().next();
    }
}
