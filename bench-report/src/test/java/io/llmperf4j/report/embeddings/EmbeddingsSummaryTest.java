package io.llmperf4j.report.embeddings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embeddings summary's figures, its files, and a sweep's table and CSV. */
class EmbeddingsSummaryTest {

    /** A success of {@code e2eMillis} with {@code usage} prompt tokens (null: none sent), 10 sampled tokens. */
    private static RequestRecord ok(int index, long e2eMillis, Integer usage) {
        return new RequestRecord(index, "req-" + index, null, 1_700_000_000_000_000L + index, RequestRecord.NEVER,
                RequestRecord.NEVER, e2eMillis * 1_000_000L, 1, new long[0], "", 10, -1, 0, usage, null, null, null);
    }

    private static RequestRecord failed(int index, FailureKind kind, int code) {
        return new RequestRecord(index, "req-" + index, null, 1_700_000_000_000_000L + index, RequestRecord.NEVER,
                RequestRecord.NEVER, 5_000_000L, 0, new long[0], "", 10, -1, 0, null, null, null,
                new Failure(kind, code, "bad, \"quoted\""));
    }

    @Test
    void figuresOverSuccessesAndTheDuration() {
        List<RequestRecord> records = List.of(ok(0, 100, 12), ok(1, 200, 12), ok(2, 300, 12), ok(3, 400, 12),
                failed(4, FailureKind.HTTP_STATUS, 503), failed(5, FailureKind.MALFORMED_EVENT, -1));
        EmbeddingsSummary s = EmbeddingsSummary.of(records, 3, 2_000_000_000L);
        assertEquals(4, s.completed());
        assertEquals(2, s.errors());
        assertEquals(0.25, s.p50(), 1e-9, "linear: halfway between 0.2 and 0.3");
        assertEquals(0.37, s.p90(), 1e-9);
        assertEquals(0.25, s.mean(), 1e-9);
        assertEquals(6.0, s.inputsPerSecond(), 1e-9, "4 requests of 3 inputs in 2 s");
        assertEquals(24.0, s.tokensPerSecond(), 1e-9, "48 usage tokens in 2 s");
        assertTrue(s.tokensFromUsage());
        assertEquals(Map.of("HTTP_STATUS", 1, "MALFORMED_EVENT", 1), s.errorKinds());
        assertTrue(s.render().contains("Errors by kind: {HTTP_STATUS=1, MALFORMED_EVENT=1}"), s.render());
    }

    /**
     * QA (apis, emb-500): with every request failed the summary held bare {@code "latency_s_p50": NaN}, which no strict
     * JSON parser reads, and the console "p50 NaN". The tool's own files write a figure without a value as null; the
     * console as "-", as the token table does.
     */
    @Test
    void everyRequestFailedWritesNullLatenciesAndPrintsDashes(@TempDir Path tmp) throws IOException {
        EmbeddingsSummary s = EmbeddingsSummary.of(List.of(failed(0, FailureKind.HTTP_STATUS, 500),
                failed(1, FailureKind.HTTP_STATUS, 500)), 1, 1_000_000_000L);
        assertTrue(s.render().contains("Latency (s): p50 -, p90 -, p99 -, mean -\n"), s.render());
        EmbeddingsSummary.Written files = s.write(tmp, "m_50_150", new EmbeddingsSummary.Settings("m",
                "http://127.0.0.1:1/v1/embeddings", 1, 50, 5, "closed loop, concurrency 1", Map.of()), false);
        JsonNode json = new ObjectMapper().readTree(files.summaryJson().toFile()); // strict: no NaN
        for (String key : List.of("latency_s_p50", "latency_s_p90", "latency_s_p99", "latency_s_mean")) {
            assertTrue(json.get(key).isNull(), key + ": " + json.get(key));
        }
        assertEquals(0.0, json.get("inputs_per_s").asDouble());
        assertEquals(2, json.get("num_errors").asInt());
    }

    @Test
    void withoutUsageTheWorkloadCountsAndSaysSo() {
        EmbeddingsSummary s = EmbeddingsSummary.of(List.of(ok(0, 100, 12), ok(1, 100, null)), 1, 1_000_000_000L);
        assertEquals(22, s.inputTokens());
        assertTrue(s.render().contains("tokens from the workload"), s.render());
        assertEquals(10, EmbeddingsSummary.inputTokens(ok(2, 1, null)));
        assertEquals(12, EmbeddingsSummary.inputTokens(ok(2, 1, 12)));
    }

    @Test
    void filesAndSweepTable(@TempDir Path tmp) throws IOException {
        EmbeddingsSummary one = EmbeddingsSummary.of(List.of(ok(0, 100, 12), failed(1, FailureKind.HTTP_STATUS, 429)),
                2, 1_000_000_000L);
        EmbeddingsSummary.Written files = one.write(tmp.resolve("concurrency_2"), "m_50_150",
                new EmbeddingsSummary.Settings("m", "http://127.0.0.1:1/v1/embeddings", 2, 50, 5,
                        "closed loop, concurrency 2", Map.of("run", "a")), false);
        String json = Files.readString(files.summaryJson());
        assertTrue(json.contains("\"load\": \"closed loop, concurrency 2\""), json);
        assertTrue(json.contains("\"errors_by_kind\": {\n        \"HTTP_STATUS\": 1\n    }"), json);
        assertTrue(json.endsWith("\"run\": \"a\"\n}"), json);
        List<CSVRecord> rows = rows(files.csv());
        assertEquals(2, rows.size());
        assertEquals("bad, \"quoted\"", rows.get(1).get("error_message"));
        assertEquals("429", rows.get(1).get("error_code"));

        List<EmbeddingsSweep.Level> levels = List.of(new EmbeddingsSweep.Level(1, "1", one, false, "concurrency_1"),
                new EmbeddingsSweep.Level(2, "2", one, true, "concurrency_2"));
        String table = EmbeddingsSweep.table("concurrency", levels);
        assertTrue(table.startsWith("concurrency"), table);
        assertTrue(table.contains("2 (aborted)"), table);
        List<CSVRecord> sweep = rows(EmbeddingsSweep.writeCsv(tmp, "m_50_150", "concurrency", levels));
        assertEquals(EmbeddingsSweep.COLUMNS, sweep.get(0).getParser().getHeaderNames());
        assertEquals("1", sweep.get(1).get("completed"));
        assertEquals("true", sweep.get(1).get("aborted"));
        assertEquals("2.000000", sweep.get(0).get("inputs_per_s"));
    }

    private static List<CSVRecord> rows(Path csv) throws IOException {
        try (Reader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8);
             CSVParser parser = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build()
                     .parse(reader)) {
            return parser.getRecords();
        }
    }
}
