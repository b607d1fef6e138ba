package io.llmperf4j.server;

import java.util.List;
import java.util.function.ToIntFunction;

/**
 * A validated {@code POST /v1/embeddings} request.
 *
 * @param model       the requested model id, or null when the request named none
 * @param inputs      one entry per input, in order
 * @param base64      {@code "encoding_format": "base64"} (little-endian float32), else plain floats
 * @param dimensions  the vector length to return
 */
record EmbeddingsRequest(String model, List<Input> inputs, boolean base64, int dimensions) {

    /**
     * One input: a text ({@code tokenIds} = -1) or a list of token ids ({@code text} = null, {@code tokenIds} its
     * length). {@code seed} determines the vector: FNV-1a of the text, or of the id list's JSON.
     */
    record Input(String text, int tokenIds, long seed) {
        boolean isTokenIds() {
            return tokenIds >= 0;
        }
    }

    EmbeddingsRequest {
        inputs = List.copyOf(inputs);
    }

    boolean allTokenIds() {
        return inputs.stream().allMatch(Input::isTokenIds);
    }

    /** The sum of every input's tokens: id lists count their ids, texts are counted by {@code counter}. */
    int inputTokens(ToIntFunction<String> counter) {
        long total = 0;
        for (Input input : inputs) total += input.isTokenIds() ? input.tokenIds() : counter.applyAsInt(input.text());
        return (int) Math.min(Integer.MAX_VALUE, total);
    }
}
