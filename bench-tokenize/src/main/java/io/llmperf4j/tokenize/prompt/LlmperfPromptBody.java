package io.llmperf4j.tokenize.prompt;

import java.util.List;

/** The body of an llmperf prompt: llmperf's {@code randomly_sample_sonnet_lines_prompt} line walk, to the letter. */
final class LlmperfPromptBody {
    private LlmperfPromptBody() {
    }

    /**
     * Walks {@code shuffled} in a loop. A line whose count (own BOS included) does not fit in
     * {@code remainingTokens} is cut to its first {@code remainingTokens} characters (code points, as Python slices
     * strings) and ends the body; otherwise it is appended whole and its count subtracted. Stops on the first line
     * that does not fit, even with 0 tokens remaining (which appends an empty cut).
     */
    static String build(List<String> shuffled, CorpusLines corpus, int remainingTokens) {
        StringBuilder body = new StringBuilder();
        int remaining = remainingTokens;
        for (int i = 0; ; i = (i + 1) % shuffled.size()) {
            String line = shuffled.get(i);
            int lineTokens = corpus.countWithSpecialTokens(line);
            if (remaining - lineTokens < 0) {
                body.append(firstCodePoints(line, remaining));
                return body.toString();
            }
            body.append(line);
            remaining -= lineTokens;
        }
    }

    /** Python's {@code line[:n]}: the first {@code n} code points, or the whole line if it is shorter. */
    static String firstCodePoints(String line, int n) {
        int codePoints = line.codePointCount(0, line.length());
        return n >= codePoints ? line : line.substring(0, line.offsetByCodePoints(0, n));
    }
}
