package io.llmperf4j.report.testutil;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.List;

/**
 * Validates JSON documents against llmperf4j's JSON Schemas (draft 2020-12) with networknt's json-schema-validator,
 * a complete validator, so the tests hold the written files to the schema exactly as a user's validator would.
 */
public final class JsonSchemaValidation {

    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private JsonSchemaValidation() {
    }

    /**
     * The violations of {@code instance} against {@code schema}, one line each, "JSON pointer: problem" ("/" for the
     * document itself); empty when valid.
     */
    public static List<String> violations(JsonNode schema, JsonNode instance) {
        return REGISTRY.getSchema(schema).validate(instance).stream().map(JsonSchemaValidation::line).toList();
    }

    private static String line(Error error) {
        String at = error.getInstanceLocation().toString();
        return (at.isEmpty() ? "/" : at) + ": " + error.getMessage();
    }
}
