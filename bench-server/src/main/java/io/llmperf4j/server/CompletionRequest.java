package io.llmperf4j.server;

import java.util.List;

/**
 * A validated generation request, as the simulator needs it.
 *
 * @param endpoint        chat or text completions
 * @param model           the requested model id, or null when the request named none
 * @param stream          SSE streaming or one JSON response
 * @param includeUsage    {@code stream_options.include_usage}: send the usage chunk before [DONE]
 * @param maxTokens       completion tokens to generate ({@code max_completion_tokens}, else {@code max_tokens},
 *                        else the configured default)
 * @param promptText      message contents joined by "\n" (chat), or the prompt (text); seeds the generated text
 * @param promptTokenIds  the prompt's length when it was sent as token ids, else -1 (count the text)
 * @param minTokens       vLLM's {@code min_tokens}: no simulated EOS before this many tokens (0 when absent)
 * @param ignoreEos       vLLM's {@code ignore_eos}: never stop before maxTokens
 * @param messages        the conversation (chat, Anthropic Messages), or null for a text completion; a real
 *                        engine renders it through its chat template
 * @param sampling        temperature, top_p, seed and stop as sent (the simulator ignores them)
 * @param images          the images of the messages, {@link PromptImages#NONE} for none; their tokens count in
 *                        the prompt's
 */
record CompletionRequest(
        Endpoint endpoint,
        String model,
        boolean stream,
        boolean includeUsage,
        int maxTokens,
        String promptText,
        int promptTokenIds,
        int minTokens,
        boolean ignoreEos,
        List<GenerationRequest.ChatMessage> messages,
        Sampling sampling,
        PromptImages images) {

    CompletionRequest {
        images = images == null ? PromptImages.NONE : images;
    }

    /** A request without images. */
    CompletionRequest(Endpoint endpoint, String model, boolean stream, boolean includeUsage, int maxTokens,
                      String promptText, int promptTokenIds, int minTokens, boolean ignoreEos,
                      List<GenerationRequest.ChatMessage> messages, Sampling sampling) {
        this(endpoint, model, stream, includeUsage, maxTokens, promptText, promptTokenIds, minTokens, ignoreEos,
                messages, sampling, PromptImages.NONE);
    }

    /**
     * Sampling parameters, each null when absent (their types are validated; the simulator ignores them).
     *
     * @param stop the stop strings ({@code stop}, a string or a list of strings), empty when none
     */
    record Sampling(Double temperature, Double topP, Integer seed, List<String> stop) {
        static final Sampling NONE = new Sampling(null, null, null, List.of());

        Sampling {
            stop = stop == null ? List.of() : List.copyOf(stop);
        }
    }

    boolean promptIsTokenIds() {
        return promptTokenIds >= 0;
    }

    /** What an engine is given. */
    GenerationRequest toGenerationRequest() {
        return new GenerationRequest(messages == null ? promptText : null, promptIsTokenIds(), messages, maxTokens,
                minTokens, ignoreEos, sampling.temperature(), sampling.topP(), sampling.seed(), sampling.stop());
    }
}
