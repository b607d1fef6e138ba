package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static io.llmperf4j.server.CompletionRequestParser.isAbsent;
import static io.llmperf4j.server.CompletionRequestParser.optionalText;
import static io.llmperf4j.server.CompletionRequestParser.readJson;
import static io.llmperf4j.server.InvalidRequestException.badRequest;

/**
 * Reads an OpenAI embeddings body: {@code input} a string, a list of strings, a list of token ids, or a list of
 * token id lists (no empty string or list); at most {@code maxBatchSize} inputs; {@code encoding_format}
 * "float" (default) or "base64"; {@code dimensions} in [1, configured dimensions].
 */
final class EmbeddingsRequestParser {

    private static final String INPUT_SHAPES =
            "input must be a string, a list of strings, a list of token ids or a list of token id lists.";

    private final EmbeddingsConfig config;

    EmbeddingsRequestParser(EmbeddingsConfig config) {
        this.config = config;
    }

    EmbeddingsRequest parse(InputStream body) throws InvalidRequestException {
        JsonNode root = readJson(body);
        if (!root.isObject()) throw badRequest("The request body must be a JSON object.", null);
        String model = optionalText(root, "model");
        List<EmbeddingsRequest.Input> inputs = inputs(root.path("input"));
        if (inputs.size() > config.maxBatchSize()) {
            throw badRequest("input holds " + inputs.size() + " items, more than the maximum batch size ("
                    + config.maxBatchSize() + ").", "input");
        }
        String format = optionalText(root, "encoding_format");
        if (format != null && !format.equals("float") && !format.equals("base64")) {
            throw badRequest("encoding_format (" + format + ") must be \"float\" or \"base64\".", "encoding_format");
        }
        return new EmbeddingsRequest(model, inputs, "base64".equals(format), dimensions(root));
    }

    private static List<EmbeddingsRequest.Input> inputs(JsonNode input) throws InvalidRequestException {
        if (isAbsent(input)) throw badRequest("input is required.", "input");
        List<EmbeddingsRequest.Input> inputs = new ArrayList<>();
        if (input.isTextual()) {
            inputs.add(text(input));
            return inputs;
        }
        if (!input.isArray() || input.isEmpty()) throw badRequest(INPUT_SHAPES, "input");
        if (input.get(0).isIntegralNumber()) { // one list of token ids
            inputs.add(tokenIds(input));
            return inputs;
        }
        for (JsonNode item : input) {
            if (item.isTextual()) {
                inputs.add(text(item));
            } else if (item.isArray()) {
                inputs.add(tokenIds(item));
            } else {
                throw badRequest(INPUT_SHAPES, "input");
            }
        }
        return inputs;
    }

    private static EmbeddingsRequest.Input text(JsonNode item) throws InvalidRequestException {
        if (item.textValue().isEmpty()) throw badRequest("input must not contain empty strings.", "input");
        return new EmbeddingsRequest.Input(item.textValue(), -1, Hashing.fnv(item.textValue()));
    }

    private static EmbeddingsRequest.Input tokenIds(JsonNode ids) throws InvalidRequestException {
        if (ids.isEmpty()) throw badRequest("input must not contain empty token id lists.", "input");
        for (JsonNode id : ids) {
            if (!id.isIntegralNumber()) throw badRequest(INPUT_SHAPES, "input");
        }
        return new EmbeddingsRequest.Input(null, ids.size(), Hashing.fnv(ids.toString()));
    }

    private int dimensions(JsonNode root) throws InvalidRequestException {
        JsonNode value = root.path("dimensions");
        if (isAbsent(value)) return config.dimensions();
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 1
                || value.intValue() > config.dimensions()) {
            throw badRequest("dimensions (" + value + ") must be an integer within [1, " + config.dimensions() + "].",
                    "dimensions");
        }
        return value.intValue();
    }
}
