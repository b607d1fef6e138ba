package io.llmperf4j.report.testutil;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Assumptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test resources: golden files on the classpath, and llmperf's example files, read from the team's shared folder
 * ({@code shared.dir}, set by the build) because the project does not ship them. Tests that need an example file
 * are skipped when the shared folder is absent.
 */
public final class TestResources {

    /** Parses JSON as Python's json.load does: order kept, NaN allowed, floats as Double, ints as Integer/Long. */
    public static final JsonMapper PYTHON_LIKE_JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private TestResources() {
    }

    private static final String EXAMPLES_PREFIX = "llmperf-examples/";

    public static String text(String path) {
        if (path.startsWith(EXAMPLES_PREFIX)) {
            return sharedExample(path);
        }
        try (InputStream in = TestResources.class.getResourceAsStream("/" + path)) {
            if (in == null) throw new IllegalArgumentException("no test resource " + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sharedExample(String path) {
        String sharedDir = System.getProperty("shared.dir", "../../shared");
        Path file = Path.of(sharedDir, "spec", path);
        Assumptions.assumeTrue(Files.isRegularFile(file), "llmperf example file absent: " + file);
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> jsonObject(String path) {
        try {
            return PYTHON_LIKE_JSON.readValue(text(path), LinkedHashMap.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> jsonArrayOfObjects(String path) {
        try {
            return PYTHON_LIKE_JSON.readValue(text(path), List.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
