package io.llmperf4j.distributed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The JSON that crosses the cluster: jobs, records and outcomes travel as strings inside Hazelcast's tasks, so the
 * model's records need no serialization interfaces and stay JDK-only.
 */
final class Wire {
    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Wire() {
    }

    static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName() + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    static <T> T read(String json, Class<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot decode " + type.getSimpleName() + ": " + e.getOriginalMessage(),
                    e);
        }
    }

    static <T> T read(String json, TypeReference<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot decode " + type.getType() + ": " + e.getOriginalMessage(), e);
        }
    }
}
