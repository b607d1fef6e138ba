package io.llmperf4j.tokenize.llama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Builds the HuggingFace {@code tokenizer.json} equivalent to {@code hf-internal-testing/llama-tokenizer}
 * (what llmperf loads) from the llama-tokenizer-js data: SentencePiece-style BPE with byte fallback, a normalizer
 * that prepends and substitutes {@code ▁}, no pre-tokenizer, and a post-processor that adds {@code <s>}.
 */
public final class HfTokenizerJson {
    static final String SPACE_MARK = "\u2581"; // "▁", SentencePiece's visible space
    private static final String[] SPECIAL_TOKENS = {"<unk>", "<s>", "</s>"}; // ids 0, 1, 2

    private static final ObjectMapper JSON = new ObjectMapper();

    private HfTokenizerJson() {
    }

    public static ObjectNode build(LlamaTokenizerJsData data) {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        root.set("added_tokens", addedTokens(data));
        root.set("normalizer", normalizer());
        root.putNull("pre_tokenizer");
        root.set("post_processor", postProcessor());
        root.set("decoder", decoder());
        root.set("model", model(data));
        return root;
    }

    /** Compact UTF-8 JSON, byte-for-byte the same for the same input (field order is fixed above). */
    public static byte[] toBytes(JsonNode tokenizerJson) {
        try {
            return JSON.writeValueAsBytes(tokenizerJson);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize tokenizer.json", e);
        }
    }

    private static ArrayNode addedTokens(LlamaTokenizerJsData data) {
        ArrayNode added = JSON.createArrayNode();
        for (int id = 0; id < SPECIAL_TOKENS.length; id++) {
            if (!data.vocab().get(id).equals(SPECIAL_TOKENS[id])) {
                throw new IllegalArgumentException("token " + id + " is " + data.vocab().get(id)
                        + ", expected " + SPECIAL_TOKENS[id]);
            }
            added.addObject()
                    .put("id", id)
                    .put("content", SPECIAL_TOKENS[id])
                    .put("single_word", false)
                    .put("lstrip", false)
                    .put("rstrip", false)
                    .put("normalized", false)
                    .put("special", true);
        }
        return added;
    }

    private static ObjectNode normalizer() {
        ObjectNode sequence = JSON.createObjectNode().put("type", "Sequence");
        ArrayNode steps = sequence.putArray("normalizers");
        steps.addObject().put("type", "Prepend").put("prepend", SPACE_MARK);
        steps.add(replace(" ", SPACE_MARK));
        return sequence;
    }

    private static ObjectNode postProcessor() {
        ObjectNode template = JSON.createObjectNode().put("type", "TemplateProcessing");
        ArrayNode single = template.putArray("single");
        single.add(specialToken("<s>", 0));
        single.add(sequence("A", 0));
        ArrayNode pair = template.putArray("pair");
        pair.add(specialToken("<s>", 0));
        pair.add(sequence("A", 0));
        pair.add(specialToken("<s>", 1));
        pair.add(sequence("B", 1));
        ObjectNode bos = template.putObject("special_tokens").putObject("<s>");
        bos.put("id", "<s>");
        bos.putArray("ids").add(1);
        bos.putArray("tokens").add("<s>");
        return template;
    }

    private static ObjectNode decoder() {
        ObjectNode sequence = JSON.createObjectNode().put("type", "Sequence");
        ArrayNode steps = sequence.putArray("decoders");
        steps.add(replace(SPACE_MARK, " "));
        steps.addObject().put("type", "ByteFallback");
        steps.addObject().put("type", "Fuse");
        // removes the one space the normalizer prepended
        steps.addObject().put("type", "Strip").put("content", " ").put("start", 1).put("stop", 0);
        return sequence;
    }

    private static ObjectNode model(LlamaTokenizerJsData data) {
        ObjectNode model = JSON.createObjectNode().put("type", "BPE");
        model.putNull("dropout");
        model.put("unk_token", "<unk>");
        model.putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", true);
        model.put("byte_fallback", true);
        ObjectNode vocab = model.putObject("vocab");
        for (int id = 0; id < data.vocab().size(); id++) {
            String token = data.vocab().get(id);
            if (vocab.has(token)) throw new IllegalArgumentException("duplicate token " + token + " at id " + id);
            vocab.put(token, id);
        }
        // merges are "left right" strings; token strings never contain a plain space (spaces are ▁)
        ArrayNode merges = model.putArray("merges");
        int[] ids = data.mergeIds();
        for (int k = 0; k < data.mergeCount(); k++) {
            String left = data.vocab().get(ids[2 * k]);
            String right = data.vocab().get(ids[2 * k + 1]);
            if (left.contains(" ") || right.contains(" ")) {
                throw new IllegalArgumentException("merge " + k + " has a token with a space: " + left + " | " + right);
            }
            merges.add(left + " " + right);
        }
        return model;
    }

    private static ObjectNode replace(String pattern, String content) {
        ObjectNode replace = JSON.createObjectNode().put("type", "Replace");
        replace.putObject("pattern").put("String", pattern);
        replace.put("content", content);
        return replace;
    }

    private static ObjectNode specialToken(String id, int typeId) {
        ObjectNode node = JSON.createObjectNode();
        node.putObject("SpecialToken").put("id", id).put("type_id", typeId);
        return node;
    }

    private static ObjectNode sequence(String id, int typeId) {
        ObjectNode node = JSON.createObjectNode();
        node.putObject("Sequence").put("id", id).put("type_id", typeId);
        return node;
    }
}
