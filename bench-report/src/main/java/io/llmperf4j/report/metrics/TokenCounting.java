package io.llmperf4j.report.metrics;

import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import java.util.OptionalInt;

/**
 * How llmperf4j's own metrics count a request's tokens (llmperf's files keep llmperf's count, untouched): the
 * report's name for bench-model's {@link OutputTokenPolicy}, the one policy the engine's sweep rows use too.
 *
 * <p>{@link RequestRecord#outputTokens()} is llmperf's count: {@code len(tokenizer.encode(text))}, special tokens
 * the tokenizer's post-processor adds included. With the Llama-2 tokenizer that is one BOS token, so an empty
 * text counts 1 and 150 generated tokens count 151. The corrected client count subtracts
 * {@code clientSpecialTokens} (never below 0). A tokenizer without a BOS post-processor (Llama-3's
 * tokenizer.json) adds none: pass 0.
 *
 * @param clientSpecialTokens tokens the client tokenizer adds to every text it counts (Llama-2: 1, the BOS)
 * @param preferServerUsage   true: a request's count is the server's {@code usage.completion_tokens} when sent,
 *                            else the corrected client count; false: the client count first, the server's when
 *                            the client never counted
 */
public record TokenCounting(int clientSpecialTokens, boolean preferServerUsage) {

    /** The special tokens the Llama-2 tokenizer llmperf uses adds to a text: one BOS. */
    public static final int LLAMA2_SPECIAL_TOKENS = OutputTokenPolicy.LLAMA2_SPECIAL_TOKENS;

    /** Server usage first, else the Llama-2 client count minus its BOS. */
    public static final TokenCounting DEFAULT = new TokenCounting(LLAMA2_SPECIAL_TOKENS, true);

    public TokenCounting {
        if (clientSpecialTokens < 0) {
            throw new IllegalArgumentException("clientSpecialTokens (" + clientSpecialTokens + ") must be >= 0");
        }
    }

    /** The same policy as bench-model's record, which the engine can reach. */
    public OutputTokenPolicy policy() {
        return new OutputTokenPolicy(clientSpecialTokens, preferServerUsage);
    }

    /** The client tokenizer's output count without its special tokens; empty when never counted. */
    public OptionalInt clientOutputTokens(RequestRecord record) {
        return policy().clientOutputTokens(record);
    }

    /** The server's {@code usage.completion_tokens}; empty when the server sent none. */
    public static OptionalInt serverOutputTokens(RequestRecord record) {
        return OutputTokenPolicy.serverOutputTokens(record);
    }
}
