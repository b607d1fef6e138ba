package io.llmperf4j.report.summary;

/**
 * A count with its noun and verb in agreement, for the console's, the summary's and the page's words: "1 request", "2 requests"; "1 request was",
 * "2 requests were". Every line that counts something says it through here, so none says "1 requests were".
 */
public final class Plural {
    private Plural() {
    }

    /** "1 request", "2 requests" ({@code noun} singular, its plural with an s). */
    public static String of(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** "was" for one, "were" for any other count. */
    public static String was(long n) {
        return n == 1 ? "was" : "were";
    }

    /** "is" for one, "are" for any other count. */
    public static String is(long n) {
        return n == 1 ? "is" : "are";
    }
}
