package io.llmperf4j.report.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.metrics.WarningCode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The summary schema names exactly the keys the summary writer can write: derived from the writer's own types
 * ({@link SummaryDocument} and every record under it, as Jackson serializes them) and enums, not from a list kept in
 * a test, so a key added to the writer without the schema (or a warning code without its enum entry) fails here.
 */
class SummarySchemaKeysTest {

    /** The summary's naming, as {@link SummaryJson} writes it. */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
    private static final JsonNode SCHEMA = SummaryJson.parse(SummaryJson.schemaText());

    @Test
    void everyObjectTheWriterWritesHasExactlyItsKeysInTheSchema() {
        List<String> drift = new ArrayList<>();
        compare(MAPPER.constructType(SummaryDocument.class), SCHEMA, "", drift);
        assertEquals(List.of(), drift);
    }

    @Test
    void theMapsKeysAreTheEnumsTheWriterUses() {
        assertEquals(names(Arrays.stream(Metric.values()).map(Metric::jsonKey).toList()),
                names(SCHEMA.at("/properties/metrics/properties")));
        assertEquals(names(Arrays.stream(FailureKind.values()).map(Enum::name).toList()),
                values(SCHEMA.at("/properties/errors/properties/by_kind/propertyNames/enum")));
    }

    @Test
    void everyWarningCodeIsInTheSchemasEnum() {
        assertEquals(names(Arrays.stream(WarningCode.values()).map(Enum::name).toList()),
                values(SCHEMA.at("/properties/warnings/items/properties/code/enum")));
    }

    /** Adds to {@code drift} where {@code type}'s serialized keys and {@code schema}'s properties differ, recursively. */
    private static void compare(JavaType type, JsonNode schema, String path, List<String> drift) {
        JsonNode object = resolve(schema);
        BeanDescription bean = MAPPER.getSerializationConfig().introspect(type);
        Set<String> written = new TreeSet<>();
        for (BeanPropertyDefinition property : bean.findProperties()) {
            if (!property.couldSerialize()) continue;
            written.add(property.getName());
            JsonNode child = object.path("properties").path(property.getName());
            JavaType childType = property.getPrimaryType();
            if (childType.isCollectionLikeType()) {
                childType = childType.getContentType();
                child = resolve(child).path("items");
            }
            if (!child.isMissingNode() && isOurObject(childType)) {
                compare(childType, child, path + "/" + property.getName(), drift);
            }
        }
        Set<String> described = names(object.path("properties"));
        if (!written.equals(described)) {
            Set<String> undescribed = new TreeSet<>(written);
            undescribed.removeAll(described);
            Set<String> unwritten = new TreeSet<>(described);
            unwritten.removeAll(written);
            drift.add((path.isEmpty() ? "/" : path) + ": written, not in the schema " + undescribed
                    + "; in the schema, never written " + unwritten);
        }
    }

    /** A record (or class) of llmperf4j's own that serializes as a JSON object; maps and enums are not. */
    private static boolean isOurObject(JavaType type) {
        Class<?> raw = type.getRawClass();
        return raw.getName().startsWith("io.llmperf4j.") && !raw.isEnum() && !type.isMapLikeType();
    }

    private static JsonNode resolve(JsonNode schema) {
        JsonNode ref = schema.get("$ref");
        return ref == null ? schema : SCHEMA.at(ref.asText().substring(1));
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Set<String> names(List<String> list) {
        return new TreeSet<>(list);
    }

    private static Set<String> values(JsonNode array) {
        Set<String> values = new TreeSet<>();
        array.forEach(v -> values.add(v.asText()));
        return values;
    }
}
