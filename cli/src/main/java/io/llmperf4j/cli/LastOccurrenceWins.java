package io.llmperf4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * argparse's rule, which llmperf's users rely on, for options inside help sections too: of a single-value option
 * given twice, the last occurrence wins. picocli allows overwriting for plain options, but an option of an
 * {@code @ArgGroup} given twice starts a second instance of the whole section, so the section's other options
 * given before it would be lost. The earlier occurrences are therefore dropped before parsing (after expanding
 * {@code @argfiles}, whose options count like the others).
 */
final class LastOccurrenceWins {
    private LastOccurrenceWins() {
    }

    /**
     * @param root      the command tree the arguments are for (read, not parsed)
     * @param freshTree another command tree, to expand {@code @argfiles} with
     * @return the arguments without the earlier occurrences of repeated single-value options, abbreviations of an
     *         llmperf command's options written out ({@link ArgparseAbbreviations}); {@code args} itself when nothing
     *         changed; when they contain @argfiles, already expanded (so parse them without expanding)
     * @throws CommandLine.ParameterException for an ambiguous abbreviation
     */
    static String[] apply(CommandLine root, Supplier<CommandLine> freshTree, String[] args) {
        List<String> expanded = Arrays.asList(args);
        if (expanded.stream().anyMatch(a -> a.startsWith("@"))) {
            try {
                expanded = freshTree.get().parseArgs(args).expandedArgs();
            } catch (CommandLine.ParameterException e) {
                return args; // picocli will report it when it parses them for real
            }
        }
        // an abbreviation repeats its option too: compared by full name
        List<String> kept = dropEarlierOccurrences(root, ArgparseAbbreviations.expand(root, expanded));
        return kept.equals(Arrays.asList(args)) ? args : kept.toArray(String[]::new);
    }

    private static List<String> dropEarlierOccurrences(CommandLine root, List<String> args) {
        // each argument's option (null: a value, a command name or a positional parameter)
        CommandSpec spec = root.getCommandSpec();
        OptionSpec[] optionOf = new OptionSpec[args.size()];
        int[] width = new int[args.size()]; // how many arguments the option occupies, itself included
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--")) break; // the rest are positional
            CommandLine sub = spec.subcommands().get(arg);
            if (sub != null) {
                spec = sub.getCommandSpec();
                continue;
            }
            int eq = arg.indexOf('=');
            OptionSpec option = arg.startsWith("-") ? spec.findOption(eq > 0 ? arg.substring(0, eq) : arg) : null;
            if (option == null) continue;
            optionOf[i] = option;
            boolean valueFollows = eq < 0 && option.arity().max() > 0 && i + 1 < args.size()
                    && (option.arity().min() > 0 || !args.get(i + 1).startsWith("-"));
            width[i] = valueFollows ? 2 : 1;
            i += width[i] - 1;
        }
        Set<OptionSpec> seen = new HashSet<>();
        boolean[] drop = new boolean[args.size()];
        for (int i = args.size() - 1; i >= 0; i--) {
            OptionSpec option = optionOf[i];
            if (option == null || option.isMultiValue() || option.usageHelp() || option.versionHelp()) continue;
            if (!seen.add(option)) {
                for (int k = 0; k < width[i]; k++) drop[i + k] = true;
            }
        }
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            if (!drop[i]) kept.add(args.get(i));
        }
        return kept;
    }
}
