package io.llmperf4j.report.llmperf;

import io.llmperf4j.model.BenchmarkSettings;

/**
 * llmperf's result file names: base = {@code "{model}_{mean_input_tokens}_{mean_output_tokens}"} after
 * {@code re.sub(r"[^\w\d-]+", "-", base)} and {@code re.sub(r"-{2,}", "-", base)}. Examples:
 * {@code meta-llama/Llama-2-7b-chat-hf} → {@code meta-llama-Llama-2-7b-chat-hf_550_150},
 * {@code gpt-3.5-turbo} → {@code gpt-3-5-turbo_550_150}. Leading and trailing dashes are kept.
 *
 * <p>Python 3's {@code \w} on a str is Unicode: letters and numbers of any script plus "_". Java's
 * {@code UNICODE_CHARACTER_CLASS} {@code \w} differs (it takes combining marks and connector punctuation, and
 * leaves out numbers such as "²"), hence the explicit test below.
 */
public final class LlmperfFileNames {

    private LlmperfFileNames() {
    }

    /** The sanitised base of every file name of a run. */
    public static String baseName(BenchmarkSettings settings) {
        return sanitize(settings.model() + "_" + settings.meanInputTokens() + "_" + settings.meanOutputTokens());
    }

    /** {@code <base>_summary.json} */
    public static String summaryFileName(BenchmarkSettings settings) {
        return baseName(settings) + "_summary.json";
    }

    /** {@code <base>_individual_responses.json} */
    public static String individualResponsesFileName(BenchmarkSettings settings) {
        return baseName(settings) + "_individual_responses.json";
    }

    /** {@code <base>_requests.csv} (ours; llmperf writes no CSV). */
    public static String requestsCsvFileName(BenchmarkSettings settings) {
        return baseName(settings) + "_requests.csv";
    }

    /** {@code <base>_events.csv} (ours, with {@code --save-events}): one row per content event. */
    public static String eventsCsvFileName(BenchmarkSettings settings) {
        return baseName(settings) + "_events.csv";
    }

    /**
     * Replaces every run of characters other than word characters and "-" by one "-", then collapses runs of
     * dashes. The two regex passes of llmperf reduce to this single scan: both only ever produce single dashes.
     */
    public static String sanitize(String name) {
        StringBuilder out = new StringBuilder(name.length());
        name.codePoints().forEach(cp -> {
            boolean kept = isPythonWordChar(cp) || cp == '-';
            if (kept && cp != '-') {
                out.appendCodePoint(cp);
            } else if (out.length() == 0 || out.charAt(out.length() - 1) != '-') {
                out.append('-');
            }
        });
        return out.toString();
    }

    /** Python's Unicode {@code \w}: {@code str.isalnum()} (letters L*, numbers N*) or "_". */
    static boolean isPythonWordChar(int cp) {
        if (cp == '_' || Character.isLetter(cp)) return true;
        int type = Character.getType(cp);
        return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER
                || type == Character.OTHER_NUMBER;
    }
}
