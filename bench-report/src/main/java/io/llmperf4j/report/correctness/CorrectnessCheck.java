package io.llmperf4j.report.correctness;

import io.llmperf4j.model.RequestRecord;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * llmperf's check of one answer, exactly: a request whose {@code error_code} is truthy (not null, not 0) errored;
 * otherwise {@code re.sub(r"(\d+),(?=\d)", r"\1", text)} drops every comma that sits between digits,
 * {@code re.findall(r"\d+", ...)} lists the digit runs, and the answer passes when {@code str(n)} is one of them.
 * "The number is 1,234." passes for 1234; "12345" does not (one run, not equal); "1234.5" does.
 *
 * <p>Python's {@code \d} on a str is any Unicode decimal digit, as {@link Pattern#UNICODE_CHARACTER_CLASS} makes
 * Java's: "١٢٣٤" is a digit run, and never equals the ASCII {@code str(n)}.
 */
public final class CorrectnessCheck {
    private static final Pattern COMMA_BETWEEN_DIGITS =
            Pattern.compile("(\\d+),(?=\\d)", Pattern.UNICODE_CHARACTER_CLASS);
    private static final Pattern DIGIT_RUN = Pattern.compile("\\d+", Pattern.UNICODE_CHARACTER_CLASS);

    private CorrectnessCheck() {
    }

    /** The outcome of {@code record}, whose prompt spelled out {@code expected}. */
    public static CorrectnessOutcome outcome(RequestRecord record, long expected) {
        if (errored(record)) {
            return CorrectnessOutcome.ERRORED;
        }
        return containsNumber(record.generatedText(), expected)
                ? CorrectnessOutcome.PASSED : CorrectnessOutcome.MISMATCHED;
    }

    /** llmperf's {@code if not metrics["error_code"]} inverted: a failure whose code is not 0. */
    public static boolean errored(RequestRecord record) {
        return record.failure() != null && record.failure().code() != 0;
    }

    /** {@code text} with every comma between two digits removed ("1,234,567" → "1234567"). */
    public static String withoutDigitCommas(String text) {
        return COMMA_BETWEEN_DIGITS.matcher(text).replaceAll("$1");
    }

    /** Whether {@code str(expected)} is one of the digit runs of {@code text} once digit commas are removed. */
    public static boolean containsNumber(String text, long expected) {
        String wanted = Long.toString(expected);
        Matcher runs = DIGIT_RUN.matcher(withoutDigitCommas(text));
        while (runs.find()) {
            if (runs.group().equals(wanted)) {
                return true;
            }
        }
        return false;
    }

    /** The text llmperf prints for a mismatch: digit commas removed, each "\n" made a space. */
    public static String mismatchDisplayText(String text) {
        return withoutDigitCommas(text).replace("\n", " ");
    }
}
