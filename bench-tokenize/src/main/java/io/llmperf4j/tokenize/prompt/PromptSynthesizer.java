package io.llmperf4j.tokenize.prompt;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Synthesizes a workload the way llmperf's {@code token_benchmark_ray.py} does: for each request, in this order of
 * random draws,
 * <ol>
 *   <li>{@code max_tokens = sample_random_positive_int(mean_out, sd_out)} (or a draw from another
 *       {@link LengthDistribution});</li>
 *   <li>the prefix "Randomly stream lines from the following text with {max_tokens} output tokens. Don't generate
 *       eos tokens:\n\n";</li>
 *   <li>{@code n = sample_random_positive_int(mean_in, sd_in)} (or another distribution), redrawn while
 *       {@code n < tokens(prefix)} (in both modes, so a mean below the prefix length yields prompts of at least the
 *       prefix);</li>
 *   <li>the corpus lines, in file order, shuffled with {@code random.shuffle};</li>
 *   <li>the body: llmperf's line walk ({@link PromptMode#LLMPERF}) or an exact-length cut
 *       ({@link PromptMode#EXACT}), neither of which draws random numbers.</li>
 * </ol>
 * With the same seed, corpus line count and tokenizer, both modes give the same {@code max_tokens} and
 * {@code n} as llmperf. Everything runs on the calling thread, so the result never depends on timing.
 * Thread-safe; token counts of corpus lines and prefixes are measured once and kept.
 */
public final class PromptSynthesizer {
    /** Exact mode re-encodes every this-many-th prompt built from per-line counts, to check them. */
    static final int VERIFY_EVERY = 64;
    private static final int MAX_CACHED_PREFIXES = 8_192;
    /** The left context the per-line counts are measured after: a prefix, as every prompt starts with one. */
    private static final String PROBE = PromptPrefix.text(PromptParams.DEFAULT_MEAN_OUTPUT_TOKENS);

    private final Tokenizer tokenizer;
    private final CorpusLines corpus;
    private final Map<Integer, Integer> prefixTokensByMaxTokens = new ConcurrentHashMap<>();
    private final Object fastPathLock = new Object();
    private volatile boolean fastPathAnalysed;
    private volatile LineAdditiveFitter fastPath;

    /**
     * @param tokenizer   counts tokens (llmperf: Llama-2)
     * @param corpusLines the corpus as Python's {@code readlines()} gives it: each line keeps its {@code "\n"}
     */
    public PromptSynthesizer(Tokenizer tokenizer, List<String> corpusLines) {
        this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
        this.corpus = new CorpusLines(corpusLines, tokenizer);
    }

    /**
     * The workload {@code params} describe; the same params always give the same list.
     *
     * <p>Exact mode builds most prompts from token counts measured once per corpus line (see
     * {@link LineAdditiveFitter}), which is what makes it fast; it re-encodes the first and then every
     * {@value #VERIFY_EVERY}th prompt built that way and, should one ever disagree, builds the whole workload again
     * encoding every prompt.
     */
    public List<RequestSpec> synthesize(PromptParams params) {
        if (params.mode() == PromptMode.EXACT) {
            LineAdditiveFitter additive = fastPath();
            if (additive != null) {
                List<RequestSpec> requests = generate(params, additive);
                if (requests != null) return requests;
                fastPath = null; // this tokenizer does not add up line by line after all
            }
        }
        return generate(params, null);
    }

    /**
     * A text of exactly {@code tokens} tokens (special tokens included, as {@link Tokenizer#count} counts): {@code lead}
     * followed by the corpus lines shuffled with {@code seed}, walked in a loop and cut to length. Encodes as it goes
     * (about three encodes), so meant for one-off texts such as a shared prompt prefix.
     *
     * @throws IllegalArgumentException when {@code lead} alone is longer than {@code tokens}
     * @throws IllegalStateException when no text of exactly that length can be built from this corpus
     */
    public String textOfExactly(String lead, int tokens, long seed) {
        int leadTokens = tokenizer.count(lead);
        if (leadTokens > tokens) {
            throw new IllegalArgumentException("cannot build a text of " + tokens + " tokens: the lead text alone is "
                    + leadTokens + " tokens with " + tokenizer.id());
        }
        List<String> lines = corpus.inFileOrder();
        new PythonRandom(seed).shuffle(lines);
        return new ExactPromptFitter(tokenizer, corpus).fit(lead, leadTokens, lines, tokens).text();
    }

    /**
     * The tokens of the instruction prefix a prompt with {@code maxTokens} starts with, counted by {@code tokenizer}:
     * the fewest input tokens such a prompt can have.
     */
    public static int promptPrefixTokens(Tokenizer tokenizer, int maxTokens) {
        return tokenizer.count(PromptPrefix.text(maxTokens));
    }

    /** The tokenizer lengths are counted with. */
    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /** The workload; {@code null} when a checked prompt built from per-line counts was wrong. */
    private List<RequestSpec> generate(PromptParams params, LineAdditiveFitter additive) {
        PythonRandom random = new PythonRandom(params.seed());
        ExactPromptFitter fitter = new ExactPromptFitter(tokenizer, corpus, additive);
        List<RequestSpec> requests = new ArrayList<>(params.requestCount());
        int fromLineCounts = 0;
        for (int index = 0; index < params.requestCount(); index++) {
            int maxTokens = params.outputLengths().sample(random);
            String prefix = PromptPrefix.text(maxTokens);
            int prefixTokens = prefixTokens(maxTokens, prefix);
            int inputTokens = params.inputLengths().sampleAtLeast(random, prefixTokens);
            List<String> lines = corpus.inFileOrder();
            random.shuffle(lines);

            if (params.mode() == PromptMode.LLMPERF) {
                String prompt = prefix + LlmperfPromptBody.build(lines, corpus, inputTokens - prefixTokens);
                requests.add(new RequestSpec(index, prompt, inputTokens, maxTokens));
                continue;
            }
            ExactPromptFitter.Fitted fitted = fitter.fit(prefix, prefixTokens, lines, inputTokens);
            if (fitted.fromLineCounts() && fromLineCounts++ % VERIFY_EVERY == 0
                    && tokenizer.count(fitted.text()) != fitted.tokens()) {
                return null;
            }
            requests.add(new RequestSpec(index, fitted.text(), fitted.tokens(), maxTokens));
        }
        return List.copyOf(requests);
    }

    private int prefixTokens(int maxTokens, String prefix) {
        Integer cached = prefixTokensByMaxTokens.get(maxTokens);
        if (cached != null) return cached;
        int tokens = tokenizer.count(prefix);
        if (prefixTokensByMaxTokens.size() < MAX_CACHED_PREFIXES) prefixTokensByMaxTokens.put(maxTokens, tokens);
        return tokens;
    }

    private LineAdditiveFitter fastPath() {
        if (!fastPathAnalysed) {
            synchronized (fastPathLock) {
                if (!fastPathAnalysed) {
                    fastPath = LineAdditiveFitter.analyse(tokenizer, corpus.inFileOrder(), PROBE);
                    fastPathAnalysed = true;
                }
            }
        }
        return fastPath;
    }

    /** The workload encoding every exact-mode prompt: what {@link #synthesize} gives, only slower. */
    List<RequestSpec> synthesizeEncodingEveryPrompt(PromptParams params) {
        return generate(params, null);
    }

    /** Whether exact mode builds prompts from per-line counts with this tokenizer and corpus (analyses once). */
    boolean usesLineCounts() {
        return fastPath() != null;
    }
}
