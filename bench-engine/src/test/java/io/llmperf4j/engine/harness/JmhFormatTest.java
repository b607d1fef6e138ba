package io.llmperf4j.engine.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JmhFormatTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static List<String> names(JsonNode n) {
        List<String> l = new ArrayList<>();
        Iterator<String> it = n.fieldNames();
        it.forEachRemaining(l::add);
        return l;
    }

    @Test
    void jsonHasJmhShape() throws IOException {
        HarnessResult r = Fixtures.harnessResult();
        JsonNode root = JSON.readTree(JmhJsonFormat.toJson(List.of(r)));
        assertTrue(root.isArray());
        assertEquals(1, root.size());
        JsonNode b = root.get(0);
        assertEquals(List.of("jmhVersion", "benchmark", "mode", "threads", "forks", "jdkVersion", "vmName",
                "vmVersion", "warmupIterations", "warmupTime", "warmupBatchSize", "measurementIterations",
                "measurementTime", "measurementBatchSize", "params", "primaryMetric", "secondaryMetrics",
                "measuredRequests"), names(b));
        // llmperf4j's own: 4 successes in each of 3 measured iterations of 2 forks, none failed
        assertEquals(24, b.get("measuredRequests").get("succeeded").asInt());
        assertEquals(0, b.get("measuredRequests").get("failed").asInt());
        assertEquals("llmperf4j", b.get("jmhVersion").asText());
        assertEquals("llm.chat", b.get("benchmark").asText());
        assertEquals("thrpt", b.get("mode").asText());
        assertEquals(8, b.get("threads").asInt());
        assertEquals(2, b.get("forks").asInt());
        assertEquals(1, b.get("warmupIterations").asInt());
        assertEquals("1 s", b.get("warmupTime").asText());
        assertEquals(3, b.get("measurementIterations").asInt());
        assertEquals("1 s", b.get("measurementTime").asText());
        assertEquals("8", b.get("params").get("concurrency").asText());

        JsonNode p = b.get("primaryMetric");
        // JMH's keys, then llmperf4j's own: the metric's mode (no per-request percentiles for a rate)
        assertEquals(List.of("score", "scoreError", "scoreConfidence", "scorePercentiles", "scoreUnit", "rawData",
                "mode"), names(p));
        assertEquals("thrpt", p.get("mode").asText());
        assertEquals(804.8333333333334, p.get("score").asDouble(), 1e-9);
        assertEquals(29.100334329258764, p.get("scoreError").asDouble(), 1e-7);
        assertEquals(2, p.get("scoreConfidence").size());
        assertEquals(804.8333333333334 - 29.100334329258764, p.get("scoreConfidence").get(0).asDouble(), 1e-7);
        assertEquals(List.of("0.0", "50.0", "90.0", "95.0", "99.0", "99.9", "99.99", "99.999", "99.9999", "100.0"),
                names(p.get("scorePercentiles")));
        assertEquals(790.25, p.get("scorePercentiles").get("0.0").asDouble());
        assertEquals(820.0, p.get("scorePercentiles").get("100.0").asDouble());
        assertEquals("tok/s", p.get("scoreUnit").asText());
        assertEquals("[[812.5,790.25,805.0],[799.75,820.0,801.5]]", p.get("rawData").toString());

        JsonNode s = b.get("secondaryMetrics");
        assertEquals(List.of("requests_per_s", "ttft_ms", "tpot_ms"), names(s));
        JsonNode ttft = s.get("ttft_ms");
        assertEquals("ms", ttft.get("scoreUnit").asText());
        assertEquals("avgt", ttft.get("mode").asText());
        assertEquals("avgt", s.get("tpot_ms").get("mode").asText());
        assertEquals("thrpt", s.get("requests_per_s").get("mode").asText());
        assertEquals(List.of("score", "scoreError", "scoreConfidence", "scorePercentiles", "scoreUnit", "rawData",
                "mode", "perRequestPercentiles"), names(ttft));
        assertTrue(s.get("requests_per_s").get("perRequestPercentiles") == null, s::toString);
        // per iteration: mean of {100 + i, 200 + i}; scorePercentiles over those scores (rawData's values), as JMH
        assertEquals("[[151.0,152.0,153.0],[151.0,152.0,153.0]]", ttft.get("rawData").toString());
        JsonNode scores = ttft.get("scorePercentiles");
        assertEquals(List.of("0.0", "50.0", "90.0", "95.0", "99.0", "99.9", "99.99", "99.999", "99.9999", "100.0"),
                names(scores));
        assertEquals(151.0, scores.get("0.0").asDouble());
        assertEquals(152.0, scores.get("50.0").asDouble());
        assertEquals(153.0, scores.get("100.0").asDouble());
        // every measured request's: {101, 201}, {102, 202}, {103, 203} in each fork
        JsonNode requests = ttft.get("perRequestPercentiles");
        assertEquals(names(scores), names(requests));
        assertEquals(101.0, requests.get("0.0").asDouble());
        assertEquals(203.0, requests.get("100.0").asDouble());
        // numpy linear, as the sweep row and the summary read the same requests: position 0.9 · 11 = 9.9 between
        // the sorted 202 and 203 (commons-math's default estimator, position 0.9 · 13 = 11.7, read 203)
        assertEquals(202.9, requests.get("90.0").asDouble(), 1e-9);
        assertEquals(152.0, requests.get("50.0").asDouble(), 1e-9);
        assertEquals(4.0, s.get("requests_per_s").get("score").asDouble(), 1e-12);
        assertEquals(21.5, s.get("tpot_ms").get("score").asDouble(), 1e-12);
    }

    @Test
    void aSingleIterationWritesNaNAsJmhDoes() throws IOException {
        HarnessResult full = Fixtures.harnessResult();
        ForkResult f = full.forks().get(0);
        HarnessResult one = new HarnessResult("x", Map.of(), full.settings(), full.load(),
                List.of(new ForkResult(1, f.warmup(), f.measurement().subList(0, 1), f.load(), true)), true);
        String json = JmhJsonFormat.toJson(List.of(one));
        JsonNode p = JSON.readTree(json).get(0).get("primaryMetric");
        assertEquals("NaN", p.get("scoreError").asText());
        assertTrue(p.get("scoreError").isTextual(), json);
        Path file = Files.createTempFile("jmh", ".json");
        try {
            JmhJsonFormat.write(List.of(one), file);
            assertEquals(JSON.readTree(json), JSON.readTree(Files.readString(file)));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void textHasJmhLines() {
        String text = JmhTextFormat.render(List.of(Fixtures.harnessResult()));
        assertTrue(text.contains("# Warmup: 1 iteration, 1 s each\n"), text);
        assertTrue(text.contains("# Measurement: 3 iterations, 1 s each\n"), text);
        assertTrue(text.contains("# Parameters: (concurrency = 8)\n"), text);
        assertTrue(text.contains("# Fork: 2 of 2\n"), text);
        assertTrue(text.contains("# Warmup Iteration   1: 500.000 tok/s"), text);
        assertTrue(text.contains("\nIteration   1: 812.500 tok/s\n"), text);
        assertTrue(text.contains("Result \"llm.chat\":\n  804.833 ±(99.9%) 29.100 tok/s [Average]\n"), text);
        assertTrue(text.contains("  CI (99.9%): [775.733, 833.934] (assumes normal distribution)\n"), text);
        assertTrue(Pattern.compile("\\nBenchmark\\s+\\(concurrency\\)\\s+Mode\\s+Cnt\\s+Score\\s+Error\\s+Units\\n")
                .matcher(text).find(), text);
        assertTrue(Pattern.compile("\\nllm\\.chat\\s+8\\s+thrpt\\s+6\\s+804\\.833 ± 29\\.100\\s+tok/s\\n")
                .matcher(text).find(), text);
        // TTFT and TPOT are mean times: JMH's average-time mode; the rates are throughputs
        assertTrue(Pattern.compile("\\nllm\\.chat:ttft_ms\\s+8\\s+avgt\\s+6\\s+152\\.000 ±\\s+\\S+\\s+ms\\n")
                .matcher(text).find(), text);
        assertTrue(Pattern.compile("\\nllm\\.chat:tpot_ms\\s+8\\s+avgt\\s+6\\s").matcher(text).find(), text);
        assertTrue(Pattern.compile("\\nllm\\.chat:requests_per_s\\s+8\\s+thrpt\\s+6\\s").matcher(text).find(), text);
        assertTrue(text.contains("# Benchmark mode: Throughput, output tokens/time (ttft_ms, tpot_ms: Average time "
                + "per request)\n"), text);
        assertTrue(!text.contains(JmhTextFormat.ONE_ITERATION) && !text.contains(JmhTextFormat.FEWER_THAN_TWO_SCORES),
                text);
    }

    @Test
    void oneMeasuredIterationSaysWhyTheErrorIsBlank() {
        HarnessResult full = Fixtures.harnessResult();
        ForkResult f = full.forks().get(0);
        HarnessResult one = new HarnessResult("llm.chat", Map.of("concurrency", "8"),
                HarnessSettings.of(1, Duration.ofSeconds(1), 1, Duration.ofSeconds(1), 1), full.load(),
                List.of(new ForkResult(1, f.warmup(), f.measurement().subList(0, 1), f.load(), false)), false);
        String table = JmhTextFormat.summaryTable(List.of(one));
        assertTrue(Pattern.compile("\\nllm\\.chat\\s+8\\s+thrpt\\s+1\\s+812\\.500\\s+tok/s\\n").matcher(table).find(),
                table);
        assertTrue(table.endsWith("\n" + JmhTextFormat.ONE_ITERATION + "\n"), table);
        assertTrue(JmhTextFormat.ONE_ITERATION.startsWith("(one measured iteration: no interval"));
    }
}
