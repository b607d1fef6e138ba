package io.llmperf4j.server;

import java.util.List;

/**
 * A validated generation request as an engine needs it, from any of the front's generation APIs (chat completions,
 * text completions, Anthropic Messages).
 *
 * @param prompt           a text completion's prompt, or null for a conversation; when
 *                         {@code promptIsTokenIds}, the ids as a JSON array
 * @param promptIsTokenIds the text completion's prompt was sent as token ids
 * @param messages         a conversation's messages in order (an Anthropic {@code system} prompt comes first as a
 *                         "system" message), or null for a text completion
 * @param maxTokens        completion tokens to generate at most
 * @param minTokens        vLLM's {@code min_tokens}: no end of sequence before this many tokens (0 when absent)
 * @param ignoreEos        vLLM's {@code ignore_eos}
 * @param temperature      sampling temperature, or null when the request sent none
 * @param topP             nucleus sampling, or null
 * @param seed             sampling seed, or null
 * @param stop             stop strings (OpenAI's {@code stop}): the text ends before the first one generated, which is
 *                         not returned, with finish reason "stop"; empty when none
 */
public record GenerationRequest(String prompt, boolean promptIsTokenIds, List<ChatMessage> messages, int maxTokens,
                                int minTokens, boolean ignoreEos, Double temperature, Double topP, Integer seed,
                                List<String> stop) {

    public GenerationRequest {
        if ((prompt == null) == (messages == null)) {
            throw new IllegalArgumentException("a generation request has a prompt or messages, not both");
        }
        if (messages != null) messages = List.copyOf(messages);
        stop = stop == null ? List.of() : List.copyOf(stop);
    }

    /** True for a conversation (chat completions, Anthropic Messages), false for a text completion. */
    public boolean isChat() {
        return messages != null;
    }

    /** One message of a conversation: its role as sent ("user" when it had none) and its text. */
    public record ChatMessage(String role, String content) {
    }
}
