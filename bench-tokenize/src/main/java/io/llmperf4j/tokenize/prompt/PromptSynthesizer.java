package io.llmperf4j.tokenize.prompt;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Synthesizes a workload the way llmperf's {@code token_benchmark_ray.py} does: for each request, in this order of
 * random draws,
 * <ol>
 *   <li>{@code max_tokens = sample_random_positive_int(mean_out, sd_out)};</li>
 *   <li>the prefix "Randomly stream lines from the following text with {max_tokens} output tokens. Don't generate
 *       eos tokens:\n\n";</li>
 *   <li>{@code n = sample_random_positive_int(mean_in, sd_in)}, redrawn while {@code n < tokens(prefix)} (in both
 *       modes, so a mean below the prefix length yields prompts of at least the prefix);</li>
 *   <li>the corpus lines, in file order, shuffled with {@code random.shuffle};</li>
 *   <li>the body: llmperf's line walk ({@link PromptMode#LLMPERF}) or an exact-length cut
 *       ({@link PromptMode#EXACT}), neither of which draws random numbers.</li>
 * </ol>
 * With the same seed, corpus line count and tokenizer, both modes give the same {@code max_tokens} and
 * {@code n} as llmperf. Everything runs on the calling thread, so the result never depends on timing.
 * Immutable and thread-safe.
 */
public final class PromptSynthesizer {
    private final Tokenizer tokenizer;
    private final CorpusLines corpus;

    /**
     * @param tokenizer   counts tokens (llmperf: Llama-2)
     * @param corpusLines the corpus as Python's {@code readlines()} gives it: each line keeps its {@code "\n"}
     */
    public PromptSynthesizer(Tokenizer tokenizer, List<String> corpusLines) {
        this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
        this.corpus = new CorpusLines(corpusLines, tokenizer);
    }

    public List<RequestSpec> synthesize(PromptParams params) {
        PythonRandom random = new PythonRandom(params.seed());
        Map<Integer, Integer> prefixTokensByMaxTokens = new HashMap<>();
        ExactPromptFitter fitter = new ExactPromptFitter(tokenizer, corpus);
        List<RequestSpec> requests = new ArrayList<>(params.requestCount());
        for (int index = 0; index < params.requestCount(); index++) {
            int maxTokens = LengthSampler.samplePositiveInt(random, params.meanOutputTokens(), params.stddevOutputTokens());
            String prefix = PromptPrefix.text(maxTokens);
            int prefixTokens = prefixTokensByMaxTokens.computeIfAbsent(maxTokens, k -> tokenizer.count(prefix));
            int inputTokens = LengthSampler.samplePositiveIntAtLeast(
                    random, params.meanInputTokens(), params.stddevInputTokens(), prefixTokens);
            List<String> lines = corpus.inFileOrder();
            random.shuffle(lines);

            requests.add(switch (params.mode()) {
                case LLMPERF -> new RequestSpec(index,
                        prefix + LlmperfPromptBody.build(lines, corpus, inputTokens - prefixTokens), inputTokens, maxTokens);
                case EXACT -> {
                    ExactPromptFitter.Fitted fitted = fitter.fit(prefix, prefixTokens, lines, inputTokens);
                    yield new RequestSpec(index, fitted.text(), fitted.tokens(), maxTokens);
                }
            });
        }
        return List.copyOf(requests);
    }
}
