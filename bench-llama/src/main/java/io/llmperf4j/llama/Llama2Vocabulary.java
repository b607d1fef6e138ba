package io.llmperf4j.llama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.tokenize.TokenizerUnavailableException;
import io.llmperf4j.tokenize.llama.BuiltInLlama2;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Llama-2 vocabulary as llama.cpp's SentencePiece ("llama") tokenizer wants it, read from the built-in
 * tokenizer.json that bench-tokenize derives: token strings in id order, a score per token and a token type.
 *
 * <p>llama.cpp merges adjacent pieces by score, highest first, where the HuggingFace file lists merges in priority
 * order; so a token's score is minus the rank of the first merge that produces it. Tokens no merge produces (single
 * characters, bytes, specials) never win a merge and score below every merge. With these scores llama.cpp splits
 * text exactly as the HuggingFace tokenizer does ({@code "Hello world"} is {@code [15043, 3186]}).
 */
final class Llama2Vocabulary {
    static final int UNKNOWN_ID = 0;
    static final int BOS_ID = 1;
    static final int EOS_ID = 2;

    // llama.cpp's token types
    static final int TYPE_NORMAL = 1;
    static final int TYPE_UNKNOWN = 2;
    static final int TYPE_CONTROL = 3;
    static final int TYPE_BYTE = 6;

    private final List<String> tokens;
    private final float[] scores;
    private final int[] types;
    private final Map<String, Integer> ids;

    private Llama2Vocabulary(List<String> tokens, float[] scores, int[] types, Map<String, Integer> ids) {
        this.tokens = List.copyOf(tokens);
        this.scores = scores;
        this.types = types;
        this.ids = Map.copyOf(ids);
    }

    /** Reads the tokenizer.json bench-tokenize carries on the classpath. */
    static Llama2Vocabulary builtIn() {
        try (InputStream in = Llama2Vocabulary.class.getClassLoader().getResourceAsStream(BuiltInLlama2.RESOURCE)) {
            if (in == null) throw new TokenizerUnavailableException(BuiltInLlama2.UNAVAILABLE_MESSAGE);
            return fromTokenizerJson(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + BuiltInLlama2.RESOURCE, e);
        }
    }

    static Llama2Vocabulary fromTokenizerJson(JsonNode tokenizerJson) {
        JsonNode model = tokenizerJson.path("model");
        JsonNode vocab = model.path("vocab");
        String[] byId = new String[vocab.size()];
        Map<String, Integer> ids = new HashMap<>(vocab.size() * 2);
        for (Map.Entry<String, JsonNode> entry : vocab.properties()) {
            int id = entry.getValue().intValue();
            byId[id] = entry.getKey();
            ids.put(entry.getKey(), id);
        }
        JsonNode merges = model.path("merges");
        float unmerged = -(float) merges.size() - 1;
        float[] scores = new float[byId.length];
        Arrays.fill(scores, unmerged);
        boolean[] scored = new boolean[byId.length];
        for (int rank = 0; rank < merges.size(); rank++) {
            String merge = merges.get(rank).textValue();
            int space = merge.indexOf(' ');
            Integer id = ids.get(merge.substring(0, space) + merge.substring(space + 1));
            if (id != null && !scored[id]) {
                scores[id] = -rank;
                scored[id] = true;
            }
        }
        int[] types = new int[byId.length];
        for (int id = 0; id < byId.length; id++) {
            types[id] = typeOf(id, byId[id]);
            if (types[id] != TYPE_NORMAL) scores[id] = 0;
        }
        return new Llama2Vocabulary(new ArrayList<>(Arrays.asList(byId)), scores, types, ids);
    }

    private static int typeOf(int id, String token) {
        if (id == UNKNOWN_ID) return TYPE_UNKNOWN;
        if (id == BOS_ID || id == EOS_ID) return TYPE_CONTROL;
        if (token.length() == 6 && token.startsWith("<0x") && token.endsWith(">")) return TYPE_BYTE;
        return TYPE_NORMAL;
    }

    int size() {
        return tokens.size();
    }

    List<String> tokens() {
        return tokens;
    }

    float[] scores() {
        return scores.clone();
    }

    int[] types() {
        return types.clone();
    }

    /** The id of a token string as the vocabulary spells it ({@code "▁world"}, {@code "<0xF0>"}). */
    int id(String token) {
        Integer id = ids.get(token);
        if (id == null) throw new IllegalArgumentException("not a Llama-2 token: " + token);
        return id;
    }
}
