package io.llmperf4j.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses --additional-sampling-params as llmperf does (json.loads, then {@code if not params: params = {}}), keeping
 * the user's key order: a value Python deems empty ({@code null}, {@code false}, {@code 0}, {@code ""}, {@code []})
 * means no parameters, as in llmperf.
 */
final class SamplingParamsParser {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private SamplingParamsParser() {
    }

    static Map<String, Object> parse(String text) {
        JsonNode node;
        try {
            node = JSON.readTree(text == null || text.isBlank() ? "{}" : text);
        } catch (JsonProcessingException e) {
            throw new UsageException("--additional-sampling-params is not valid JSON: "
                    + e.getOriginalMessage() + " (got '" + text + "')");
        }
        if (node != null && pythonFalsy(node)) {
            return new LinkedHashMap<>();
        }
        if (node == null || !node.isObject()) {
            throw new UsageException("--additional-sampling-params must be a JSON object such as "
                    + "'{\"temperature\": 0.7}' (got '" + text + "')");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> params = JSON.convertValue(node, LinkedHashMap.class);
        return params;
    }

    /** What Python's {@code not value} holds for a json.loads result: None, False, zero, and empty strings and lists. */
    private static boolean pythonFalsy(JsonNode node) {
        return node.isNull() || node.isBoolean() && !node.booleanValue()
                || node.isNumber() && node.doubleValue() == 0
                || node.isTextual() && node.textValue().isEmpty() || node.isArray() && node.size() == 0;
    }
}
