package io.llmperf4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.UnmatchedArgumentException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What an argument picocli could not match probably meant: a typo or another tool's spelling of one of this
 * command's options (underscores for dashes, as argparse users type them; a letter off), a mistyped command name, or a
 * flag of vLLM's {@code benchmark_serving.py} / {@code vllm bench serve}, which llmperf4j spells differently. The
 * suggestions follow the error on its own line, one a line.
 */
final class UnmatchedArgumentHints {

    /** vLLM's benchmark flags and what llmperf4j says instead; the operator gets the flag's value (null: none). */
    private static final Map<String, UnaryOperator<String>> VLLM = new LinkedHashMap<>();

    /** llmperf's four length flags, which its correctness script lacks. */
    private static final List<String> LENGTH_FLAGS = List.of("--mean-input-tokens", "--stddev-input-tokens",
            "--mean-output-tokens", "--stddev-output-tokens");

    static {
        VLLM.put("--base-url", v -> "set OPENAI_API_BASE=" + (v == null ? "URL" : strip(v)) + "/v1 (and "
                + "OPENAI_API_KEY) instead");
        VLLM.put("--host", v -> "set OPENAI_API_BASE=http://HOST:PORT/v1 instead");
        VLLM.put("--port", v -> "set OPENAI_API_BASE=http://HOST:" + (v == null ? "PORT" : v) + "/v1 instead");
        VLLM.put("--backend", v -> "use --llm-api openai (vLLM serves the OpenAI API; the default)");
        VLLM.put("--endpoint", v -> "OPENAI_API_BASE names the base URL; --llm-api openai sends to "
                + "/chat/completions");
        VLLM.put("--num-prompts", v -> "use --max-num-completed-requests " + (v == null ? "N" : v));
        VLLM.put("--random-input-len", v -> "use --mean-input-tokens " + (v == null ? "N" : v)
                + " --stddev-input-tokens 0");
        VLLM.put("--random-output-len", v -> "use --mean-output-tokens " + (v == null ? "N" : v)
                + " --stddev-output-tokens 0");
        VLLM.put("--dataset-name", v -> "llmperf's synthetic prompts are the default (vLLM's 'random'); "
                + "--dataset sharegpt:FILE for ShareGPT");
        VLLM.put("--dataset-path", v -> "use --dataset sharegpt:" + (v == null ? "FILE" : v));
        VLLM.put("--save-result", v -> "results are always saved, in --results-dir DIR");
        VLLM.put("--result-dir", v -> "use --results-dir " + (v == null ? "DIR" : v));
    }

    private UnmatchedArgumentHints() {
    }

    /** One line per unmatched option or command this can place; empty when none. */
    static List<String> of(UnmatchedArgumentException e) {
        CommandSpec spec = e.getCommandLine().getCommandSpec();
        List<String> unmatched = e.getUnmatched();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < unmatched.size(); i++) {
            String arg = unmatched.get(i);
            if (arg.startsWith("-")) {
                int eq = arg.indexOf('=');
                String name = eq > 0 ? arg.substring(0, eq) : arg;
                String value = eq > 0 ? arg.substring(eq + 1)
                        : i + 1 < unmatched.size() && !unmatched.get(i + 1).startsWith("-") ? unmatched.get(i + 1)
                        : null;
                String dashed = name.replace('_', '-');
                UnaryOperator<String> vllm = VLLM.get(dashed);
                if (vllm != null && spec.findOption(dashed) == null) {
                    lines.add(name + " (vLLM's benchmark): " + vllm.apply(value));
                    continue;
                }
                String hint = ownSpelling(spec, dashed);
                if (hint != null) {
                    lines.add(name + ": " + hint);
                    continue;
                }
                String closest = closestOption(spec, dashed);
                if (closest != null) lines.add(name + ": did you mean " + closest + "?");
            } else if (i == 0 && !spec.subcommands().isEmpty()) { // a command name
                String dashed = arg.replace('_', '-').toLowerCase(Locale.ROOT);
                if (spec.subcommands().containsKey(dashed)) {
                    lines.add(arg + ": did you mean " + dashed + "?");
                } else {
                    // picocli's suggestions, most similar name first (cosine similarity of letter pairs)
                    List<String> similar = e.getSuggestions();
                    if (!similar.isEmpty()) lines.add(arg + ": did you mean " + similar.get(0) + "?");
                }
            }
        }
        return lines;
    }

    /**
     * What an option llmperf4j spells otherwise meant: a length flag given to correctness (llmperf's
     * llm_correctness.py has none), {@code --rate} (one rate or several), or a prefix of one of llmperf4j's own flags,
     * which are not abbreviated as llmperf's are ({@link ArgparseAbbreviations}); null when none of these.
     */
    private static String ownSpelling(CommandSpec spec, String name) {
        if (spec.name().equals("correctness")) {
            for (String length : LENGTH_FLAGS) {
                if (length.startsWith(name)) {
                    return "correctness draws no lengths and sends no max_tokens, as llmperf's llm_correctness.py "
                            + "(" + length + " is token-benchmark's)";
                }
            }
        }
        if (name.equals("--rate") && spec.findOption("--request-rate") != null) {
            return "one rate is --request-rate R, several are --rate-sweep R1,R2,...";
        }
        if (!ArgparseAbbreviations.COMMANDS.contains(spec.name())) return null;
        List<String> starting = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            if (!option.hidden() && option.longestName().startsWith(name)) starting.add(option.longestName());
        }
        // llmperf's flags are abbreviated already; an underscored full name is a typo, left to the next rule
        boolean ownPrefix = starting.size() == 1 && name.length() > 3 && starting.get(0).length() > name.length()
                && !ArgparseAbbreviations.LLMPERF_FLAGS.contains(starting.get(0));
        return ownPrefix ? "did you mean " + starting.get(0) + "? (only llmperf's own flags may be abbreviated)" : null;
    }

    /**
     * This command's visible option closest to {@code name} (underscores already dashes): the same name in another
     * case, or within a small edit distance (a letter missing, doubled or swapped, a plural's s); null when none is.
     */
    private static String closestOption(CommandSpec spec, String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (OptionSpec option : spec.options()) {
            if (option.hidden()) continue;
            for (String candidate : option.names()) {
                if (!candidate.startsWith("--")) continue;
                int d = distance(wanted, candidate.toLowerCase(Locale.ROOT));
                if (d < bestDistance) {
                    bestDistance = d;
                    best = option.longestName();
                }
            }
        }
        int allowed = Math.max(1, Math.min(3, name.length() / 6));
        return bestDistance <= allowed ? best : null;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) previous[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static String strip(String url) {
        String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return base.endsWith("/v1") ? base.substring(0, base.length() - 3) : base;
    }

    /** For the callers that hold a {@link CommandLine.ParameterException}: its hints, or none. */
    static List<String> of(CommandLine.ParameterException e) {
        return e instanceof UnmatchedArgumentException u ? of(u) : List.of();
    }
}
