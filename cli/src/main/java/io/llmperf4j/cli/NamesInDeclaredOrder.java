package io.llmperf4j.cli;

import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.IHelpFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The help lists an option's names in the order they are declared: the name we use first, its aliases (an older
 * name, llmperf's spelling) after it. picocli itself lists the shortest first, which would show an alias such as
 * {@code --warmup-s} before {@code --warmup-duration}.
 */
final class NamesInDeclaredOrder implements IHelpFactory {
    @Override
    public Help create(CommandSpec spec, ColorScheme colorScheme) {
        return new Help(spec, colorScheme) {
            @Override
            public IOptionRenderer createDefaultOptionRenderer() {
                IOptionRenderer picocli = super.createDefaultOptionRenderer();
                return (option, labels, scheme) -> reorder(picocli.render(option, labels, scheme), option, scheme);
            }
        };
    }

    private static Text[][] reorder(Text[][] rows, OptionSpec option, ColorScheme scheme) {
        String[] declared = option.names();
        if (declared.length < 2 || rows.length == 0 || option.shortestName().length() == 2) {
            return rows; // one name, or a short option picocli puts in its own column
        }
        String[] shortestFirst = declared.clone();
        Arrays.sort(shortestFirst, Comparator.comparingInt(String::length));
        String picocliNames = String.join(", ", shortestFirst);
        for (int column = 0; column < rows[0].length; column++) {
            Text text = rows[0][column];
            if (text != null && text.plainString().startsWith(picocliNames)) {
                Text names = scheme.optionText(declared[0]);
                for (int i = 1; i < declared.length; i++) {
                    names = names.concat(", ").concat(scheme.optionText(declared[i]));
                }
                rows[0][column] = names.concat(text.substring(picocliNames.length()));
                break;
            }
        }
        return rows;
    }
}
