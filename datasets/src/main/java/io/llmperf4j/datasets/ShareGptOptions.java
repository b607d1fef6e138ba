package io.llmperf4j.datasets;

import io.llmperf4j.tokenize.prompt.LengthDistribution;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which ShareGPT exchanges a workload may use, and where {@code max_tokens} comes from.
 *
 * @param minPromptTokens  prompts shorter than this are skipped (counted like numberInputTokens: BOS included when
 *                         the tokenizer adds one)
 * @param maxPromptTokens  prompts longer than this are skipped
 * @param minOutputTokens  replies shorter than this are skipped (counted without special tokens)
 * @param maxOutputTokens  replies longer than this are skipped
 * @param outputLengths    {@code null}: {@code max_tokens} is the reply's token count; otherwise drawn from this
 *                         (the reply filters still apply)
 */
public record ShareGptOptions(int minPromptTokens, int maxPromptTokens, int minOutputTokens, int maxOutputTokens,
                              LengthDistribution outputLengths) {
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    public ShareGptOptions {
        if (minPromptTokens < 0 || maxPromptTokens < minPromptTokens) {
            throw new IllegalArgumentException("prompt token bounds [" + minPromptTokens + ", " + maxPromptTokens
                    + "] must satisfy 0 <= min <= max");
        }
        if (minOutputTokens < 1 || maxOutputTokens < minOutputTokens) {
            throw new IllegalArgumentException("output token bounds [" + minOutputTokens + ", " + maxOutputTokens
                    + "] must satisfy 1 <= min <= max");
        }
    }

    /** Every exchange with a non-empty prompt and reply; {@code max_tokens} = the reply's length. */
    public static ShareGptOptions defaults() {
        return new ShareGptOptions(0, UNBOUNDED, 1, UNBOUNDED, null);
    }

    public ShareGptOptions withPromptTokens(int min, int max) {
        return new ShareGptOptions(min, max, minOutputTokens, maxOutputTokens, outputLengths);
    }

    public ShareGptOptions withOutputTokens(int min, int max) {
        return new ShareGptOptions(minPromptTokens, maxPromptTokens, min, max, outputLengths);
    }

    public ShareGptOptions withOutputLengths(LengthDistribution lengths) {
        return new ShareGptOptions(minPromptTokens, maxPromptTokens, minOutputTokens, maxOutputTokens, lengths);
    }

    /** For manifests: bounds that are set, and the output source. */
    Map<String, Object> parameters() {
        Map<String, Object> map = new LinkedHashMap<>();
        if (minPromptTokens != 0) map.put("min_prompt_tokens", minPromptTokens);
        if (maxPromptTokens != UNBOUNDED) map.put("max_prompt_tokens", maxPromptTokens);
        if (minOutputTokens != 1) map.put("min_output_tokens", minOutputTokens);
        if (maxOutputTokens != UNBOUNDED) map.put("max_output_tokens", maxOutputTokens);
        map.put("max_tokens", outputLengths == null ? "reply length" : outputLengths.parameters());
        return map;
    }
}
