package io.llmperf4j.tokenize.prompt;

import io.llmperf4j.tokenize.TokenizedText;
import io.llmperf4j.tokenize.Tokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fast path of exact mode: builds a prompt of exactly the target length from token counts measured once per
 * corpus line, without encoding the prompt.
 *
 * <p>It relies on one property of the tokenizer on this corpus: <em>after a newline, a line tokenizes the same
 * whatever came before</em>, so a prompt's count is the prefix's count plus each line's count in context (no BOS)
 * plus the count of the cut last line. That holds for Llama-2 (SentencePiece BPE: the newline is a byte-fallback
 * token no merge crosses) and for the OpenAI encodings (their pre-tokenizer splits before a letter that follows a
 * newline), but not for every tokenizer, so {@link #analyse} measures it first and returns {@code null} when it
 * fails:
 * <ol>
 *   <li>each line is encoded after a probe ending in a newline, and the probe's own tokens must come out
 *       unchanged (they do not when, say, the post-processor appends an end-of-sequence token);</li>
 *   <li>one text walking every ordered pair of lines that end in a newline (an Eulerian circuit of the complete
 *       graph, or {@value #MAX_CHECKED_PAIRS} random pairs for corpora of more than 100 such lines) must encode to
 *       exactly the concatenation of the lines' own tokens;</li>
 *   <li>a line without a final newline (a file's last line) is checked against each neighbour the first time the
 *       two meet; when it merges with the line after it (cl100k_base reads {@code "thee.From"} as
 *       {@code "thee" ".From"}), the two are measured together as one line.</li>
 * </ol>
 * The caller still re-encodes a sample of the prompts built here ({@link PromptSynthesizer}) and falls back to
 * encoding every prompt if one disagrees.
 *
 * <p>Whenever both succeed it returns the very text {@link ExactPromptFitter}'s encoding path would: the prefix, the
 * whole lines that fit, and the next line cut after its last token that keeps the total within the target, if that
 * cut re-encodes to exactly the missing tokens (measured once per line and cut). Otherwise (a cut inside an emoji's
 * byte tokens, say) it returns {@code null} and the caller encodes. Thread-safe:
 * the cut counts are filled in lazily with idempotent writes.
 */
final class LineAdditiveFitter {
    static final int MAX_CHECKED_PAIRS = 10_000;
    private static final int UNKNOWN = -1;
    private static final LineTokens NOT_JOINABLE = new LineTokens(-1, "\n", new long[0], new int[0]);

    private final Tokenizer tokenizer;
    private final String probe;
    private final long[] probeIds;
    private final Map<String, LineTokens> lines;
    private final Map<Long, Boolean> pairAdditive = new ConcurrentHashMap<>();
    private final Map<List<Integer>, Integer> cutsAfterNoNewline = new ConcurrentHashMap<>();
    private final Map<Long, LineTokens> joinedLines = new ConcurrentHashMap<>();
    private final AtomicInteger nextJoinedIndex;

    private LineAdditiveFitter(Tokenizer tokenizer, String probe, long[] probeIds, Map<String, LineTokens> lines) {
        this.tokenizer = tokenizer;
        this.probe = probe;
        this.probeIds = probeIds;
        this.lines = lines;
        this.nextJoinedIndex = new AtomicInteger(lines.size());
    }

    /** One corpus line's tokens as they come after a newline. */
    private static final class LineTokens {
        final int index;
        final String text;
        final long[] ids;
        final boolean endsWithNewline;
        /** Distinct places strictly inside the line where a token ends, ascending. */
        final int[] cutChars;
        /** Tokens of the whole line's encoding through each cut (all tokens ending there included). */
        final int[] cutTokensThrough;
        /** Tokens of the line cut there, re-encoded alone (after the probe); {@link #UNKNOWN} until measured. */
        final int[] cutCounts;

        LineTokens(int index, String text, long[] ids, int[] ends) {
            this.index = index;
            this.text = text;
            this.ids = ids;
            this.endsWithNewline = text.endsWith("\n");
            int[] chars = new int[ends.length];
            int[] through = new int[ends.length];
            int size = 0;
            for (int i = 0; i < ends.length; i++) {
                int end = ends[i];
                if (end <= 0 || end >= text.length()) continue;
                if (size > 0 && chars[size - 1] == end) {
                    through[size - 1] = i + 1;
                } else if (size == 0 || end > chars[size - 1]) {
                    chars[size] = end;
                    through[size] = i + 1;
                    size++;
                }
            }
            this.cutChars = Arrays.copyOf(chars, size);
            this.cutTokensThrough = Arrays.copyOf(through, size);
            this.cutCounts = new int[size];
            Arrays.fill(cutCounts, UNKNOWN);
        }

        int tokens() {
            return ids.length;
        }

        /** The last cut whose tokens through it do not exceed {@code tokens}, or -1. */
        int lastCutWithTokensAtMost(int tokens) {
            int cut = -1;
            while (cut + 1 < cutTokensThrough.length && cutTokensThrough[cut + 1] <= tokens) cut++;
            return cut;
        }
    }

    /**
     * Measures every distinct line and checks the property; {@code null} when this tokenizer or corpus lacks it.
     *
     * @param probe a text ending in a newline that prompts start with (the instruction prefix)
     */
    static LineAdditiveFitter analyse(Tokenizer tokenizer, List<String> distinctLines, String probe) {
        if (!probe.endsWith("\n")) throw new IllegalArgumentException("the probe must end with a newline");
        long[] probeIds = tokenizer.encode(probe);
        Map<String, LineTokens> table = new HashMap<>();
        List<LineTokens> newlineEnded = new ArrayList<>();
        for (String line : distinctLines) {
            if (table.containsKey(line)) continue;
            Optional<LineTokens> tokens = measure(tokenizer, probe, probeIds, line, table.size());
            if (tokens.isEmpty()) return null;
            table.put(line, tokens.get());
            if (tokens.get().endsWithNewline) newlineEnded.add(tokens.get());
        }
        LineAdditiveFitter fitter = new LineAdditiveFitter(tokenizer, probe, probeIds, table);
        return fitter.walkIsAdditive(newlineEnded) ? fitter : null;
    }

    /** {@code text}'s tokens after the probe; empty when the probe's own tokens change or a token straddles both. */
    private static Optional<LineTokens> measure(Tokenizer tokenizer, String probe, long[] probeIds, String text, int index) {
        TokenizedText encoded = tokenizer.encodeWithOffsets(probe + text);
        long[] ids = encoded.ids();
        if (ids.length <= probeIds.length || !startsWith(ids, probeIds)) return Optional.empty();
        int[] ends = new int[ids.length - probeIds.length];
        for (int i = 0; i < ends.length; i++) {
            int end = encoded.endCharIndex()[probeIds.length + i];
            if (end == TokenizedText.NO_OFFSET || end <= probe.length()) return Optional.empty(); // added or straddling
            ends[i] = end - probe.length();
        }
        return Optional.of(new LineTokens(index, text, Arrays.copyOfRange(ids, probeIds.length, ids.length), ends));
    }

    /** Encodes one text walking many ordered pairs of newline-ended lines, compared with the lines' own tokens. */
    private boolean walkIsAdditive(List<LineTokens> newlineEnded) {
        if (newlineEnded.isEmpty()) return true;
        int[] walk = newlineEnded.size() * (long) newlineEnded.size() <= MAX_CHECKED_PAIRS
                ? eulerianCircuit(newlineEnded.size())
                : randomWalk(newlineEnded.size(), MAX_CHECKED_PAIRS);
        StringBuilder text = new StringBuilder(probe);
        int expectedLength = probeIds.length;
        for (int node : walk) {
            LineTokens line = newlineEnded.get(node);
            text.append(line.text);
            expectedLength += line.tokens();
        }
        long[] expected = Arrays.copyOf(probeIds, expectedLength);
        int at = probeIds.length;
        for (int node : walk) {
            long[] ids = newlineEnded.get(node).ids;
            System.arraycopy(ids, 0, expected, at, ids.length);
            at += ids.length;
        }
        return Arrays.equals(expected, tokenizer.encode(text.toString()));
    }

    /**
     * Hierholzer's algorithm on the complete directed graph with self-loops: {@code n*n + 1} nodes in which every
     * ordered pair {@code (a, b)} follows each other exactly once.
     */
    static int[] eulerianCircuit(int n) {
        int edges = n * n;
        int[] nextOut = new int[n];
        int[] stack = new int[edges + 1];
        int[] circuit = new int[edges + 1];
        int top = 0;
        int size = 0;
        stack[top++] = 0;
        while (top > 0) {
            int node = stack[top - 1];
            if (nextOut[node] < n) {
                stack[top++] = nextOut[node]++;
            } else {
                circuit[size++] = stack[--top];
            }
        }
        for (int i = 0, j = size - 1; i < j; i++, j--) {
            int t = circuit[i];
            circuit[i] = circuit[j];
            circuit[j] = t;
        }
        return circuit;
    }

    private static int[] randomWalk(int n, int pairs) {
        PythonRandom random = new PythonRandom(n);
        int[] walk = new int[pairs + 1];
        for (int i = 0; i < walk.length; i++) walk[i] = random.randbelow(n);
        return walk;
    }

    /**
     * The prompt {@link ExactPromptFitter} would build, from per-line counts; {@code null} when this prompt needs
     * encoding (no exact cut in the last line, or a line without a final newline at a boundary the checks did not
     * cover).
     *
     * @param prefixTokens {@code tokenizer.count(prefix)}, at most {@code targetTokens}
     */
    ExactPromptFitter.Fitted fit(String prefix, int prefixTokens, List<String> shuffled, int targetTokens) {
        if (!prefix.endsWith("\n")) return null;
        int remaining = targetTokens - prefixTokens;
        if (remaining == 0) return fitted(prefix, targetTokens);
        StringBuilder text = new StringBuilder(prefix.length() + remaining * 5);
        text.append(prefix);
        LineTokens previous = null;
        for (int i = 0; ; i = (i + 1) % shuffled.size()) {
            LineTokens line = lines.get(shuffled.get(i));
            if (line == null) return null; // not a corpus line
            if (previous != null && !pairIsAdditive(previous, line)) return null;
            if (!line.endsWithNewline) {
                // the next line follows without a line break and may merge with this one: then take both as one
                LineTokens next = lines.get(shuffled.get((i + 1) % shuffled.size()));
                if (next == null) return null;
                if (!pairIsAdditive(line, next)) {
                    line = joined(line, next);
                    if (line == null) return null;
                    i = (i + 1) % shuffled.size();
                }
            }
            if (line.tokens() <= remaining) {
                text.append(line.text);
                remaining -= line.tokens();
                if (remaining == 0) return fitted(text.toString(), targetTokens);
                previous = line;
                continue;
            }
            int cut = line.lastCutWithTokensAtMost(remaining);
            if (cut < 0) return null;
            int cutTokens = previous == null || previous.endsWithNewline
                    ? cutCount(line, cut)
                    : cutCountAfter(previous, line, cut);
            if (cutTokens != remaining) return null;
            text.append(line.text, 0, line.cutChars[cut]);
            return fitted(text.toString(), targetTokens);
        }
    }

    private static ExactPromptFitter.Fitted fitted(String text, int tokens) {
        return new ExactPromptFitter.Fitted(text, tokens, true);
    }

    /**
     * A line without a final newline and the newline-ended line that follows it, tokenized together (they merge,
     * e.g. {@code "thee.From"} with cl100k_base); {@code null} when they cannot be treated as one line.
     */
    private LineTokens joined(LineTokens first, LineTokens second) {
        if (!second.endsWithNewline) return null;
        LineTokens pair = joinedLines.computeIfAbsent((long) first.index << 32 | second.index,
                key -> measure(tokenizer, probe, probeIds, first.text + second.text, nextJoinedIndex.getAndIncrement())
                        .orElse(NOT_JOINABLE));
        return pair == NOT_JOINABLE ? null : pair;
    }

    private int cutCount(LineTokens line, int cut) {
        int count = line.cutCounts[cut];
        if (count == UNKNOWN) {
            count = tokenizer.count(probe + line.text.substring(0, line.cutChars[cut])) - probeIds.length;
            line.cutCounts[cut] = count; // idempotent: every thread measures the same value
        }
        return count;
    }

    /** Tokens of {@code line} cut at {@code cut} right after {@code previous}, a line without a final newline. */
    private int cutCountAfter(LineTokens previous, LineTokens line, int cut) {
        return cutsAfterNoNewline.computeIfAbsent(List.of(previous.index, line.index, cut),
                key -> tokenizer.count(probe + previous.text + line.text.substring(0, line.cutChars[cut]))
                        - probeIds.length - previous.tokens());
    }

    /** Pairs of newline-ended lines were checked by {@link #analyse}; others are checked once when they meet. */
    private boolean pairIsAdditive(LineTokens left, LineTokens right) {
        if (left.endsWithNewline && right.endsWithNewline) return true;
        return pairAdditive.computeIfAbsent((long) left.index << 32 | right.index, key -> {
            long[] ids = tokenizer.encode(probe + left.text + right.text);
            long[] expected = Arrays.copyOf(probeIds, probeIds.length + left.tokens() + right.tokens());
            System.arraycopy(left.ids, 0, expected, probeIds.length, left.tokens());
            System.arraycopy(right.ids, 0, expected, probeIds.length + left.tokens(), right.tokens());
            return Arrays.equals(expected, ids);
        });
    }

    private static boolean startsWith(long[] ids, long[] start) {
        return ids.length >= start.length && Arrays.equals(ids, 0, start.length, start, 0, start.length);
    }
}
