package io.llmperf4j.datasets;

import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A shared prompt prefix for prefix-cache experiments ({@code --prefix-tokens N}): the same text, of exactly N
 * tokens with the workload's tokenizer, put in front of every prompt, followed by {@link #SEPARATOR}.
 *
 * <p>The text is the built-in corpus's lines shuffled with {@link #SEED} and cut to length, so it depends only on the
 * tokenizer and N. "Exactly N tokens" is {@code tokenizer.count(text) == N}, the BOS included for tokenizers that
 * add one (for them N counts the BOS every prompt starts with anyway, so N must be at least 2). Servers can reuse
 * the cached prefix across requests; how much they reuse is up to their block size.
 */
public final class SharedPrefix {
    /** Between the shared prefix and each prompt. */
    public static final String SEPARATOR = RequestInputs.SYSTEM_PROMPT_SEPARATOR;
    /** The shuffle of the corpus lines the prefix text is taken from. */
    public static final long SEED = 20_240_909L;

    private SharedPrefix() {
    }

    /**
     * The prefix text: {@code tokenizer.count(text) == tokens}.
     *
     * @throws IllegalArgumentException when {@code tokens} is not more than the tokenizer's count of an empty text
     */
    public static String text(Tokenizer tokenizer, int tokens) {
        Workload.requireEncoding(tokenizer);
        int empty = tokenizer.count("");
        if (tokens <= empty) {
            throw new IllegalArgumentException("a shared prefix needs more than " + empty + " tokens with "
                    + tokenizer.id() + " (its special tokens alone), not " + tokens);
        }
        return new PromptSynthesizer(tokenizer, Corpus.defaultCorpus().lines()).textOfExactly("", tokens, SEED);
    }

    /**
     * {@code workload} with the shared prefix of {@code tokens} tokens and {@link #SEPARATOR} before every prompt,
     * and each numberInputTokens re-counted on the whole text (so a workload whose counts were llmperf's sampled
     * targets gets real counts). {@code tokens == 0} returns {@code workload} unchanged.
     */
    public static Workload prepend(Workload workload, Tokenizer tokenizer, int tokens) {
        if (tokens == 0) return workload;
        if (tokens < 0) throw new IllegalArgumentException("prefix tokens (" + tokens + ") must be >= 0");
        if (!tokenizer.id().equals(workload.tokenizerId())) {
            throw new IllegalArgumentException("the workload was counted with " + workload.tokenizerId()
                    + ", not with " + tokenizer.id());
        }
        String prefix = text(tokenizer, tokens);
        List<RequestSpec> requests = new ArrayList<>(workload.requests().size());
        Map<String, Integer> counts = new HashMap<>();
        for (RequestSpec request : workload.requests()) {
            String prompt = prefix + SEPARATOR + request.prompt();
            int count = counts.computeIfAbsent(prompt, tokenizer::count);
            requests.add(new RequestSpec(request.index(), prompt, count, request.maxTokens(), request.inputs()));
        }
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("shared_prefix_tokens", tokens);
        generation.put("shared_prefix_sha256", Hashing.sha256Hex(prefix.getBytes(StandardCharsets.UTF_8)));
        return workload.with(requests, generation);
    }
}
