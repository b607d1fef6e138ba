package io.llmperf4j.engine.protocol;

/**
 * What one streamed chunk carries, API-neutral.
 *
 * @param responseId            the server's response id, or null
 * @param content               the text delta, or null/empty when the chunk carries none
 * @param finishReason          the finish reason, or null
 * @param countsAsDataEvent     whether the event counts in {@code dataEventCount} (llmperf's tokens_received)
 * @param usagePromptTokens     server-side prompt token count, or null
 * @param usageCompletionTokens server-side completion token count, or null
 * @param error                 an error object carried by the chunk, or null
 * @param reasoning             reasoning text the chunk carries apart from the content ({@code reasoning_content}
 *                              or {@code reasoning} of a chat delta), or null/empty when none
 * @param usageCachedTokens     server-side prompt tokens served from its prefix cache
 *                              ({@code usage.prompt_tokens_details.cached_tokens}, Anthropic's
 *                              {@code cache_read_input_tokens}), or null when not reported
 */
public record ParsedChunk(
        String responseId,
        String content,
        String finishReason,
        boolean countsAsDataEvent,
        Integer usagePromptTokens,
        Integer usageCompletionTokens,
        StreamError error,
        String reasoning,
        Integer usageCachedTokens) {

    /** A chunk without a cached-token count. */
    public ParsedChunk(String responseId, String content, String finishReason, boolean countsAsDataEvent,
                       Integer usagePromptTokens, Integer usageCompletionTokens, StreamError error, String reasoning) {
        this(responseId, content, finishReason, countsAsDataEvent, usagePromptTokens, usageCompletionTokens, error,
                reasoning, null);
    }

    /** A chunk without reasoning text (every API but chat completions). */
    public ParsedChunk(String responseId, String content, String finishReason, boolean countsAsDataEvent,
                       Integer usagePromptTokens, Integer usageCompletionTokens, StreamError error) {
        this(responseId, content, finishReason, countsAsDataEvent, usagePromptTokens, usageCompletionTokens, error,
                null);
    }

    public boolean hasContent() {
        return content != null && !content.isEmpty();
    }

    public boolean hasReasoning() {
        return reasoning != null && !reasoning.isEmpty();
    }
}
