package io.llmperf4j.report.testutil;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A structural JSON Schema (draft 2020-12) check covering the keywords llmperf4j's schemas use: {@code type}
 * (one or a list), {@code required}, {@code properties}, {@code additionalProperties} (boolean or schema),
 * {@code propertyNames}, {@code items}, {@code enum}, {@code const}, {@code minimum}, {@code pattern} and local
 * {@code $ref}s into {@code $defs}. Anything else is ignored (annotations such as {@code format}, {@code
 * description}). Not a full validator; enough to hold the written files to their schema.
 */
public final class JsonSchemaCheck {

    private final JsonNode root;

    private JsonSchemaCheck(JsonNode root) {
        this.root = root;
    }

    /** The violations of {@code instance} against {@code schema}, as "path: problem"; empty when valid. */
    public static List<String> violations(JsonNode schema, JsonNode instance) {
        List<String> errors = new ArrayList<>();
        new JsonSchemaCheck(schema).check(schema, instance, "$", errors);
        return errors;
    }

    private void check(JsonNode schema, JsonNode value, String path, List<String> errors) {
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            if (!ref.startsWith("#/")) throw new IllegalArgumentException("only local refs: " + ref);
            JsonNode target = root.at(ref.substring(1));
            if (target.isMissingNode()) throw new IllegalArgumentException("dangling ref " + ref);
            check(target, value, path, errors);
        }
        if (schema.has("type") && !typeMatches(schema.get("type"), value)) {
            errors.add(path + ": expected type " + schema.get("type") + ", got " + value.getNodeType());
            return;
        }
        if (schema.has("const") && !schema.get("const").equals(value)) {
            errors.add(path + ": expected " + schema.get("const") + ", got " + value);
        }
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode option : schema.get("enum")) found |= option.equals(value);
            if (!found) errors.add(path + ": " + value + " is not one of " + schema.get("enum"));
        }
        if (schema.has("minimum") && value.isNumber() && value.asDouble() < schema.get("minimum").asDouble()) {
            errors.add(path + ": " + value + " is below the minimum " + schema.get("minimum"));
        }
        if (schema.has("pattern") && value.isTextual()
                && !Pattern.compile(schema.get("pattern").asText()).matcher(value.asText()).find()) {
            errors.add(path + ": '" + value.asText() + "' does not match " + schema.get("pattern"));
        }
        if (value.isObject()) {
            if (schema.has("required")) {
                for (JsonNode key : schema.get("required")) {
                    if (!value.has(key.asText())) errors.add(path + ": missing required key '" + key.asText() + "'");
                }
            }
            JsonNode properties = schema.get("properties");
            JsonNode additional = schema.get("additionalProperties");
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                String childPath = path + "." + field.getKey();
                if (schema.has("propertyNames")) {
                    check(schema.get("propertyNames"), com.fasterxml.jackson.databind.node.TextNode.valueOf(
                            field.getKey()), childPath + "(name)", errors);
                }
                if (properties != null && properties.has(field.getKey())) {
                    check(properties.get(field.getKey()), field.getValue(), childPath, errors);
                } else if (additional != null) {
                    if (additional.isBoolean()) {
                        if (!additional.asBoolean()) errors.add(path + ": unexpected key '" + field.getKey() + "'");
                    } else {
                        check(additional, field.getValue(), childPath, errors);
                    }
                }
            }
        }
        if (value.isArray() && schema.has("items")) {
            for (int i = 0; i < value.size(); i++) check(schema.get("items"), value.get(i), path + "[" + i + "]", errors);
        }
    }

    private static boolean typeMatches(JsonNode type, JsonNode value) {
        if (type.isArray()) {
            for (JsonNode t : type) {
                if (typeMatches(t, value)) return true;
            }
            return false;
        }
        return switch (type.asText()) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber()
                    || value.isNumber() && value.asDouble() == Math.rint(value.asDouble());
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            default -> throw new IllegalArgumentException("unknown type " + type);
        };
    }
}
