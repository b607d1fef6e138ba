package io.llmperf4j.model;

import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * llmperf4j's one output-token policy: how many tokens a request generated, for every figure of ours (summary,
 * console table, HTML, sweep rows, compare, throughput). llmperf's own files keep llmperf's count untouched.
 *
 * <p>{@link RequestRecord#outputTokens()} is llmperf's count, {@code len(tokenizer.encode(text))}, special tokens
 * the tokenizer's post-processor adds included: the Llama-2 tokenizer adds one BOS, so an empty text counts 1 and
 * 150 generated tokens count 151. The corrected client count subtracts {@code clientSpecialTokens} (never below 0);
 * a tokenizer without a BOS post-processor (Llama-3's tokenizer.json) adds none: pass 0. A request with neither
 * count has none: it is left out of every figure that needs one (never counted as its content events).
 *
 * @param clientSpecialTokens tokens the client tokenizer adds to every text it counts (Llama-2: 1, the BOS)
 * @param preferServerUsage   true: the server's {@code usage.completion_tokens} when sent, else the corrected client
 *                            count; false: the client count first, the server's when the client never counted
 */
public record OutputTokenPolicy(int clientSpecialTokens, boolean preferServerUsage) {

    /** The special tokens the Llama-2 tokenizer llmperf uses adds to a text: one BOS. */
    public static final int LLAMA2_SPECIAL_TOKENS = 1;

    /** Server usage first, else the Llama-2 client count minus its BOS. */
    public static final OutputTokenPolicy DEFAULT = new OutputTokenPolicy(LLAMA2_SPECIAL_TOKENS, true);

    /** Where a count came from. */
    public enum Source { SERVER_USAGE, CLIENT_TOKENIZER, NONE }

    public OutputTokenPolicy {
        if (clientSpecialTokens < 0) {
            throw new IllegalArgumentException("clientSpecialTokens (" + clientSpecialTokens + ") must be >= 0");
        }
    }

    /** The client tokenizer's output count without its special tokens; empty when never counted. */
    public OptionalInt clientOutputTokens(RequestRecord record) {
        if (record.outputTokens() < 0) return OptionalInt.empty();
        return OptionalInt.of(Math.max(0, record.outputTokens() - clientSpecialTokens));
    }

    /** The server's {@code usage.completion_tokens}; empty when the server sent none. */
    public static OptionalInt serverOutputTokens(RequestRecord record) {
        Integer usage = record.usageCompletionTokens();
        return usage == null || usage < 0 ? OptionalInt.empty() : OptionalInt.of(usage);
    }

    /** Where the request's count comes from under this policy. */
    public Source source(RequestRecord record) {
        boolean server = serverOutputTokens(record).isPresent();
        boolean client = record.outputTokens() >= 0;
        if (preferServerUsage) {
            return server ? Source.SERVER_USAGE : client ? Source.CLIENT_TOKENIZER : Source.NONE;
        }
        return client ? Source.CLIENT_TOKENIZER : server ? Source.SERVER_USAGE : Source.NONE;
    }

    /** The request's output tokens under this policy; empty when no count exists. */
    public OptionalInt outputTokens(RequestRecord record) {
        return switch (source(record)) {
            case SERVER_USAGE -> serverOutputTokens(record);
            case CLIENT_TOKENIZER -> clientOutputTokens(record);
            case NONE -> OptionalInt.empty();
        };
    }

    /**
     * How many of the request's tokens each content event carried, from the same source as {@link #outputTokens}:
     * {@link EventTokenCounts#of}.
     */
    public EventTokenCounts eventTokens(RequestRecord record) {
        return EventTokenCounts.of(record, this);
    }

    /** The request's TPOT under this policy's count: {@link #tpotNanos(RequestRecord, int, boolean)}. */
    public OptionalDouble tpotNanos(RequestRecord record) {
        OptionalInt n = outputTokens(record);
        return n.isEmpty() ? OptionalDouble.empty()
                : tpotNanos(record, n.getAsInt(), source(record) == Source.SERVER_USAGE);
    }

    /**
     * llmperf4j's one definition of a request's TPOT (METRICS.md §3), for the summary and the iterations alike:
     * {@code (e2e − decode start) / (n − 1)}, for a successful request with content and n ≥ 2 whose end came after
     * the decode start. The decode start is TTFT, or the first reasoning token when that came first and n is the
     * server's count, which includes the reasoning tokens. A response that arrived whole (not streamed, TTFT = E2E)
     * has none, rather than 0.
     *
     * @param n                the request's output tokens
     * @param countsReasoning  n is the server's {@code completion_tokens}, reasoning tokens included
     */
    public static OptionalDouble tpotNanos(RequestRecord record, int n, boolean countsReasoning) {
        if (!record.succeeded() || record.ttftNanos() < 0 || n < 2) return OptionalDouble.empty();
        long ttft = record.ttftNanos();
        long decodeStart = countsReasoning && record.firstReasoningNanos() >= 0
                ? Math.min(record.firstReasoningNanos(), ttft) : ttft;
        long e2e = record.e2eNanos();
        return e2e > decodeStart ? OptionalDouble.of((double) (e2e - decodeStart) / (n - 1)) : OptionalDouble.empty();
    }

    /** The count for sums (throughput): as {@link #outputTokens}, 0 when no count exists. */
    public int outputTokensOrZero(RequestRecord record) {
        return outputTokens(record).orElse(0);
    }
}
