package io.llmperf4j.tokenize.prompt;

import io.llmperf4j.tokenize.TokenizedText;
import io.llmperf4j.tokenize.Tokenizer;
import java.util.Arrays;
import java.util.List;

/**
 * Builds a prompt that encodes to exactly a target number of tokens (special tokens included).
 *
 * <ol>
 *   <li>Draft: the prefix plus whole shuffled lines (walked in a loop, as llmperf does) until the draft holds more
 *       than the target, measured by encoding it.</li>
 *   <li>Cut: keep the text up to the end of the target-th token and re-encode. Re-encoding a cut can merge
 *       differently at the cut (a word cut in two), and several tokens can end at one character (an emoji's byte
 *       tokens), so a few nearby token ends are searched.</li>
 *   <li>Fallback: take the longest measured cut below the target and append short filler words (" the",
 *       " and", ...) one at a time, each kept only if the count stays within the target. With Llama-2 no sonnet
 *       prompt needs it; text with emoji or rare scripts does for a few percent of prompts (1 to 3 words).</li>
 * </ol>
 * Every returned text has been re-encoded, so its count is a measurement, never an estimate. About 2.3 encodes
 * per prompt.
 *
 * <p>With a {@link LineAdditiveFitter} (tokenizers whose counts add up line by line on this corpus) most prompts are
 * built from per-line counts instead, without encoding; they are the same texts this class would build.
 */
final class ExactPromptFitter {
    /** Extra tokens drafted past the target so the cut usually needs no second draft. */
    private static final int DRAFT_SLACK_TOKENS = 16;
    private static final int MAX_CUT_ATTEMPTS = 6;
    /** A guard against tokenizers whose count does not grow with the text; real text has a few chars per token. */
    private static final int MAX_DRAFT_CHARS_PER_TOKEN = 1_000;
    /** Each is one Llama-2 token after a word; any tokenizer is verified by re-encoding anyway. */
    private static final List<String> FILLERS = List.of(" the", " and", " of", " a", ".", ",", " ", "a", "1");

    private final Tokenizer tokenizer;
    private final CorpusLines corpus;
    private final LineAdditiveFitter additive;

    ExactPromptFitter(Tokenizer tokenizer, CorpusLines corpus) {
        this(tokenizer, corpus, null);
    }

    /** @param additive the fast path, or {@code null} to encode every prompt */
    ExactPromptFitter(Tokenizer tokenizer, CorpusLines corpus, LineAdditiveFitter additive) {
        this.tokenizer = tokenizer;
        this.corpus = corpus;
        this.additive = additive;
    }

    /**
     * A prompt text and its token count.
     *
     * @param fromLineCounts whether the count was added up from per-line counts ({@link LineAdditiveFitter})
     *                       rather than measured by encoding the text
     */
    record Fitted(String text, int tokens, boolean fromLineCounts) {
        Fitted(String text, int tokens) {
            this(text, tokens, false);
        }
    }

    /**
     * @param prefix       the instruction text
     * @param prefixTokens {@code tokenizer.count(prefix)}, which must not exceed {@code targetTokens}
     * @param shuffled     corpus lines in this prompt's shuffled order
     */
    Fitted fit(String prefix, int prefixTokens, List<String> shuffled, int targetTokens) {
        if (prefixTokens > targetTokens) {
            throw new IllegalArgumentException("target " + targetTokens + " is below the prefix's " + prefixTokens + " tokens");
        }
        if (prefixTokens == targetTokens) return new Fitted(prefix, prefixTokens);
        if (additive != null) {
            Fitted fitted = additive.fit(prefix, prefixTokens, shuffled, targetTokens);
            if (fitted != null) return fitted;
        }

        StringBuilder draft = new StringBuilder(prefix);
        int estimate = prefixTokens;
        int next = 0;
        TokenizedText encoded;
        while (true) {
            // lines are estimated by their own content tokens; context can merge differently, hence the loop
            if (draft.length() > MAX_DRAFT_CHARS_PER_TOKEN * (long) targetTokens + prefix.length()) {
                throw new IllegalStateException("the corpus text does not grow to " + targetTokens + " tokens with "
                        + tokenizer.id() + "; use the llmperf prompt mode");
            }
            while (estimate < targetTokens + DRAFT_SLACK_TOKENS) {
                String line = shuffled.get(next);
                next = (next + 1) % shuffled.size();
                draft.append(line);
                estimate += corpus.countWithoutSpecialTokens(line);
            }
            encoded = tokenizer.encodeWithOffsets(draft.toString());
            if (encoded.count() == targetTokens) return new Fitted(draft.toString(), targetTokens);
            if (encoded.count() > targetTokens) break;
            estimate = encoded.count(); // real count: draft further from here
        }
        return cut(draft.toString(), encoded, prefix.length(), prefixTokens, targetTokens);
    }

    /**
     * Searches the draft's token ends for a cut that re-encodes to the target. Cut {@code lo} is known to be below
     * the target (initially the bare prefix) and cut {@code hi} above it (initially the whole draft); each step jumps
     * by the token difference just measured, so most prompts need one encode here.
     */
    private Fitted cut(String draft, TokenizedText encoded, int prefixLength, int prefixTokens, int target) {
        Cuts cuts = Cuts.of(encoded, prefixLength, prefixTokens);
        int lo = 0;
        int loTokens = prefixTokens;
        int hi = cuts.size();
        int next = cuts.lastWithTokensAtMost(target);
        for (int attempt = 0; attempt < MAX_CUT_ATTEMPTS && hi - lo > 1; attempt++) {
            int p = Math.max(lo + 1, Math.min(hi - 1, next));
            String candidate = draft.substring(0, cuts.charIndex(p));
            int tokens = tokenizer.count(candidate);
            if (tokens == target) return new Fitted(candidate, tokens);
            if (tokens < target) {
                lo = p;
                loTokens = tokens;
                next = p + (target - tokens);
            } else {
                hi = p;
                next = p - (tokens - target);
            }
        }
        return padWithFillers(draft.substring(0, cuts.charIndex(lo)), loTokens, target);
    }

    /**
     * The distinct places a draft can be cut after a whole token, in text order, starting with the end of the prefix.
     * Several tokens can end at one place (the byte tokens of one emoji), so a cut can skip token counts.
     */
    private record Cuts(int[] charIndex, int[] tokensThrough) {
        static Cuts of(TokenizedText encoded, int prefixLength, int prefixTokens) {
            int[] chars = new int[encoded.count() + 1];
            int[] tokens = new int[encoded.count() + 1];
            chars[0] = prefixLength;
            tokens[0] = prefixTokens;
            int size = 1;
            for (int i = 0; i < encoded.count(); i++) {
                int end = encoded.endCharIndex()[i];
                if (end == TokenizedText.NO_OFFSET || end <= prefixLength) continue;
                if (end == chars[size - 1]) {
                    tokens[size - 1] = i + 1; // one more token ending at the same place
                } else if (end > chars[size - 1]) {
                    chars[size] = end;
                    tokens[size] = i + 1;
                    size++;
                }
            }
            return new Cuts(Arrays.copyOf(chars, size), Arrays.copyOf(tokens, size));
        }

        int size() {
            return charIndex.length;
        }

        int charIndex(int cut) {
            return charIndex[cut];
        }

        /** The last cut whose tokens in the full draft's encoding do not exceed {@code target}. */
        int lastWithTokensAtMost(int target) {
            int cut = 0;
            while (cut + 1 < tokensThrough.length && tokensThrough[cut + 1] <= target) cut++;
            return cut;
        }
    }

    private Fitted padWithFillers(String text, int tokens, int target) {
        StringBuilder padded = new StringBuilder(text);
        int count = tokens;
        while (count < target) {
            boolean grew = false;
            for (String filler : FILLERS) {
                int withFiller = tokenizer.count(padded + filler);
                if (withFiller > count && withFiller <= target) {
                    padded.append(filler);
                    count = withFiller;
                    grew = true;
                    break;
                }
            }
            if (!grew) {
                throw new IllegalStateException("cannot build a prompt of exactly " + target + " tokens with "
                        + tokenizer.id() + ": stuck at " + count + " tokens; use the llmperf prompt mode");
            }
        }
        return new Fitted(padded.toString(), count);
    }
}
