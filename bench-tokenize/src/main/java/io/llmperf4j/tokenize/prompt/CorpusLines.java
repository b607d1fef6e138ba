package io.llmperf4j.tokenize.prompt;

import io.llmperf4j.tokenize.Tokenizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Corpus lines in file order with their token counts, measured once: llmperf re-encodes each line every time it
 * walks past it, but the count of a line never changes.
 */
final class CorpusLines {
    private final List<String> lines;
    private final Map<String, Integer> countWithSpecialTokens = new HashMap<>();
    private final Map<String, Integer> countWithoutSpecialTokens = new HashMap<>();

    CorpusLines(List<String> lines, Tokenizer tokenizer) {
        if (lines.isEmpty()) throw new IllegalArgumentException("the corpus has no lines");
        this.lines = List.copyOf(lines);
        int contentTokens = 0;
        for (String line : this.lines) {
            countWithSpecialTokens.computeIfAbsent(line, tokenizer::count);
            contentTokens += countWithoutSpecialTokens.computeIfAbsent(line, tokenizer::countWithoutSpecialTokens);
        }
        // the line walk must make progress, and exact mode needs text to cut from
        if (contentTokens == 0) throw new IllegalArgumentException("the corpus lines hold no text");
    }

    /** A fresh, mutable copy in file order (llmperf re-reads the file for every prompt). */
    List<String> inFileOrder() {
        return new ArrayList<>(lines);
    }

    /** {@code len(tokenizer.encode(line))} as llmperf counts a line: its own BOS included. */
    int countWithSpecialTokens(String line) {
        return countWithSpecialTokens.get(line);
    }

    int countWithoutSpecialTokens(String line) {
        return countWithoutSpecialTokens.get(line);
    }
}
