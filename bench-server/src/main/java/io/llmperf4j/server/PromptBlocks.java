package io.llmperf4j.server;

import io.llmperf4j.model.TokenCounter;

/**
 * A prompt's token count and the chained hashes of its whole KV blocks, what the prefix cache is looked up with.
 * As in vLLM, only full blocks within the first {@code promptTokens - 1} tokens are cacheable: the last token is
 * always computed, so a fully cached prompt still prefills its last block.
 *
 * <p>Block {@code k} covers tokens {@code [k*B, (k+1)*B)}; its hash is FNV-1a over the prompt text up to the end of
 * its last token, so two prompts share block hashes exactly as far as their text (and so their tokens) agree. With
 * a real counter the token ends come from {@link TokenCounter#tokenEnds}; with the heuristic of {@link PromptTokens}
 * (a BOS, then one token per 4 chars) token {@code i >= 1} ends at char {@code 4i}.
 *
 * @param promptTokens the count reported in {@code usage.prompt_tokens}
 * @param blockHashes  one hash per cacheable block, in order (empty when nothing is cacheable)
 */
record PromptBlocks(int promptTokens, long[] blockHashes) {

    private static final long[] NONE = new long[0];

    /** A prompt whose blocks are unknown (sent as token ids): never cached. */
    static PromptBlocks uncached(int promptTokens) {
        return new PromptBlocks(promptTokens, NONE);
    }

    /** With the heuristic count. */
    static PromptBlocks estimate(String text, int blockTokens) {
        int tokens = PromptTokens.estimate(text);
        int blocks = blockTokens <= 0 ? 0 : (tokens - 1) / blockTokens;
        int[] ends = new int[blocks];
        for (int k = 0; k < blocks; k++) {
            long lastToken = (long) (k + 1) * blockTokens - 1; // token 0 is the BOS
            ends[k] = (int) Math.min(text.length(), lastToken * 4);
        }
        return new PromptBlocks(tokens, chain(text, ends));
    }

    /** With a real counter's token ends ({@code tokenEnds.length} tokens). */
    static PromptBlocks fromTokenEnds(String text, int[] tokenEnds, int blockTokens) {
        int tokens = tokenEnds.length;
        int blocks = blockTokens <= 0 || tokens == 0 ? 0 : (tokens - 1) / blockTokens;
        int[] ends = new int[blocks];
        for (int k = 0; k < blocks; k++) {
            int lastToken = (k + 1) * blockTokens - 1;
            int end = TokenCounter.NO_TEXT;
            for (int t = lastToken; t >= 0 && end == TokenCounter.NO_TEXT; t--) end = tokenEnds[t];
            ends[k] = Math.max(0, end);
        }
        return new PromptBlocks(tokens, chain(text, ends));
    }

    /** FNV-1a over {@code text}, read once, sampled at each block end (its index in the chain is mixed in too). */
    private static long[] chain(String text, int[] ends) {
        long[] hashes = new long[ends.length];
        long hash = Hashing.fnv("");
        int pos = 0;
        for (int k = 0; k < ends.length; k++) {
            for (; pos < ends[k]; pos++) {
                hash ^= text.charAt(pos);
                hash *= 0x100000001b3L;
            }
            hashes[k] = Hashing.mix(hash, k);
        }
        return hashes;
    }
}
