package io.llmperf4j.cli;

import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The words of a command line picocli could not parse, where picocli's own say the wrong thing: an {@code @file}
 * that does not exist (picocli then takes it as a plain argument, "Unmatched argument"), an unknown option's value
 * listed as another unknown option, and a number with a unit ("'2s' is not a double") for an option that takes a
 * number of seconds or milliseconds (its parameter label, SECONDS or MS, says which: one rule for every such option).
 */
final class ParameterErrorText {

    /** picocli's words for a value its built-in number converters refused. */
    private static final Pattern NOT_A_NUMBER = Pattern.compile("'([^']*)' is not an? (int|long|double|float)$");

    private ParameterErrorText() {
    }

    /** The message to print for {@code e}, without the "llmperf4j: " prefix and the help pointer. */
    static String of(ParameterException e) {
        if (e instanceof UnmatchedArgumentException unmatched) {
            String missing = missingArgumentFile(unmatched.getUnmatched());
            if (missing != null) return missing;
            if (e.getMessage().startsWith("Unknown option")) return unknownOptions(unmatched.getUnmatched());
            return e.getMessage();
        }
        Matcher number = NOT_A_NUMBER.matcher(e.getMessage());
        ArgSpec arg = e.getArgSpec();
        if (number.find() && arg instanceof OptionSpec option) {
            String unit = switch (option.paramLabel()) {
                case "SECONDS" -> "seconds";
                case "MS" -> "milliseconds";
                default -> null;
            };
            if (unit != null) {
                boolean whole = !number.group(2).equals("double") && !number.group(2).equals("float");
                return "Invalid value for option '" + option.longestName() + "': '" + number.group(1) + "' is not "
                        + (whole ? "a whole number" : "a number") + " of " + unit + " (give the number alone, "
                        + (whole ? "e.g. 30" : "e.g. 2 or 0.5") + ", without a unit)";
            }
        }
        return e.getMessage();
    }

    /** "argument file x.args does not exist", for the first {@code @name} picocli left unexpanded; else null. */
    private static String missingArgumentFile(List<String> unmatched) {
        for (String arg : unmatched) {
            if (arg.length() > 1 && arg.startsWith("@") && !Files.exists(Path.of(arg.substring(1)))) {
                return "argument file " + arg.substring(1) + " does not exist (an argument that starts with @ names "
                        + "a file of arguments)";
            }
        }
        return null;
    }

    /** picocli lists an unknown option's value with it ("'--x', '3'"); the options alone are unknown. */
    private static String unknownOptions(List<String> unmatched) {
        List<String> options = unmatched.stream().filter(a -> a.startsWith("-")).toList();
        if (options.isEmpty()) options = unmatched;
        return (options.size() == 1 ? "Unknown option: " : "Unknown options: ")
                + options.stream().map(o -> "'" + o + "'").collect(Collectors.joining(", "));
    }
}
