package io.llmperf4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.IHelpSectionRenderer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One help layout for every command: option names in declared order ({@link NamesInDeclaredOrder}), the option
 * sections first (llmperf's flags, then ours by topic) and the options outside any section last under "General"
 * (or "Options" for a command without sections), the exit codes, and {@code --version} everywhere.
 */
final class HelpLayout {
    private HelpLayout() {
    }

    static void apply(CommandLine root, Map<String, String> exitCodes) {
        root.setHelpFactory(new NamesInDeclaredOrder());
        apply(root, exitCodes, true);
    }

    private static void apply(CommandLine commandLine, Map<String, String> exitCodes, boolean root) {
        CommandSpec spec = commandLine.getCommandSpec();
        spec.versionProvider(new VersionProvider());
        if (!root) {
            spec.usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(exitCodes);
        }
        if (!spec.positionalParameters().isEmpty() && spec.usageMessage().parameterListHeading().isEmpty()) {
            spec.usageMessage().parameterListHeading("%nArguments:%n");
        }
        String heading = spec.argGroups().isEmpty() ? "%nOptions:%n" : "%nGeneral:%n";
        List<OptionSpec> ungrouped = spec.options().stream().filter(o -> o.group() == null).toList();
        Map<String, IHelpSectionRenderer> sections = new LinkedHashMap<>(commandLine.getHelpSectionMap());
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST_HEADING, help -> "");
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help ->
                help.optionListGroupSections() + help.createHeading(heading)
                        + help.optionListExcludingGroups(ungrouped));
        commandLine.setHelpSectionMap(sections);
        for (CommandLine sub : commandLine.getSubcommands().values()) {
            apply(sub, exitCodes, false);
        }
    }
}
