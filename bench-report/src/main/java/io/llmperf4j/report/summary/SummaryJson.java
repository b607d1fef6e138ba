package io.llmperf4j.report.summary;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.metrics.RunMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes and reads llmperf4j's summary file: pretty-printed UTF-8 JSON (two-space indent, {@code "key": value},
 * a final newline) named {@code <base>_llmperf4j_summary.json}, base as llmperf's files
 * ({@link LlmperfFileNames#baseName}). Its JSON Schema (draft 2020-12) is the classpath resource
 * {@value #SCHEMA_RESOURCE}; the previous versions', {@value #SCHEMA_2_RESOURCE} and {@value #SCHEMA_1_RESOURCE}.
 */
public final class SummaryJson {

    /**
     * The value of the document's {@code schema} key; bumped when a key is added as required, changes meaning or
     * disappears (the history is in {@code bench-report/METRICS.md}, "Schema changes").
     */
    public static final String SCHEMA = "llmperf4j.summary/3";
    /** The previous version, which readers still accept: no {@code phases}, no pre-connected connections. */
    public static final String SCHEMA_2 = "llmperf4j.summary/2";
    /** The first version, which readers still accept: the same keys as /2, of which five could be missing. */
    public static final String SCHEMA_1 = "llmperf4j.summary/1";
    /** Every version readers accept, oldest first. */
    public static final List<String> READABLE_SCHEMAS = List.of(SCHEMA_1, SCHEMA_2, SCHEMA);
    /** The JSON Schema of {@link #SCHEMA}, on the classpath. */
    public static final String SCHEMA_RESOURCE = "/io/llmperf4j/report/summary.schema.json";
    /** The JSON Schema of {@link #SCHEMA_2}, on the classpath. */
    public static final String SCHEMA_2_RESOURCE = "/io/llmperf4j/report/summary-2.schema.json";
    /** The JSON Schema of {@link #SCHEMA_1}, on the classpath. */
    public static final String SCHEMA_1_RESOURCE = "/io/llmperf4j/report/summary-1.schema.json";

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .build();
    private static final ObjectWriter WRITER = MAPPER.writer(new DefaultPrettyPrinter()
            .withSeparators(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n")));

    private SummaryJson() {
    }

    /** {@code <base>_llmperf4j_summary.json}, e.g. {@code meta-llama-Llama-2-7b-chat-hf_550_150_llmperf4j_summary.json}. */
    public static String fileName(BenchmarkSettings settings) {
        return LlmperfFileNames.baseName(settings) + "_llmperf4j_summary.json";
    }

    /** The document as pretty JSON with a final newline. */
    public static String toJson(SummaryDocument document) {
        return prettyJson(document, "the summary");
    }

    /**
     * Any of llmperf4j's own JSON documents in the summary's form (snake-case keys, two-space indent, a final
     * newline), so every file of ours reads alike.
     */
    public static String prettyJson(Object document, String what) {
        try {
            return WRITER.writeValueAsString(document) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + what + ": " + e.getOriginalMessage(), e);
        }
    }

    /** Writes {@code document} to {@code file}, replacing it. */
    public static void write(SummaryDocument document, Path file) throws IOException {
        Files.writeString(file, toJson(document), StandardCharsets.UTF_8);
    }

    /**
     * Builds the summary of {@code run} and writes it into {@code resultsDir} (created if missing) under
     * {@link #fileName}; returns the file.
     */
    public static Path write(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                             Path resultsDir) throws IOException {
        Files.createDirectories(resultsDir);
        Path file = resultsDir.resolve(fileName(run.settings()));
        write(SummaryDocument.of(run, metrics, toolVersion, environment), file);
        return file;
    }

    /** As {@link #write(BenchmarkRun, RunMetrics, String, RunEnvironment, Path)} for a run that load workers sent. */
    public static Path write(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                             SummaryDocument.DistributedJson distributed, Path resultsDir) throws IOException {
        Files.createDirectories(resultsDir);
        Path file = resultsDir.resolve(fileName(run.settings()));
        write(SummaryDocument.of(run, metrics, toolVersion, environment).withDistributed(distributed), file);
        return file;
    }

    /** Reads a summary file back as a tree (for comparisons and tests). */
    public static JsonNode read(Path file) throws IOException {
        return MAPPER.readTree(file.toFile());
    }

    /** Parses summary JSON text as a tree. */
    public static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** The JSON Schema text of {@link #SCHEMA}. */
    public static String schemaText() {
        return resource(SCHEMA_RESOURCE);
    }

    /**
     * The JSON Schema text of a readable version, e.g. {@link #SCHEMA_1}.
     *
     * @throws IllegalArgumentException for a version not in {@link #READABLE_SCHEMAS}
     */
    public static String schemaText(String schema) {
        if (SCHEMA.equals(schema)) return resource(SCHEMA_RESOURCE);
        if (SCHEMA_2.equals(schema)) return resource(SCHEMA_2_RESOURCE);
        if (SCHEMA_1.equals(schema)) return resource(SCHEMA_1_RESOURCE);
        throw new IllegalArgumentException("unknown summary schema '" + schema + "'; known: " + READABLE_SCHEMAS);
    }

    private static String resource(String name) {
        try (InputStream in = SummaryJson.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing classpath resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
