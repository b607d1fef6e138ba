package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * token-benchmark's load flags end to end over real sockets against the embedded simulated server: sweeps with a
 * verdict, the open loop's intended vs actual send, JMH-style iterations, model comparisons. Timings are tiny and
 * every assertion is a relation or a lower bound, never a wall-clock limit.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoadCommandTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    /**
     * 8 sequences at once: the service saturates at concurrency 8. 20 ms to the first token, then 45 tokens 16 ms
     * apart: ~720 ms per request, long against the client's own turnaround between two requests of a slot, which
     * concurrency 8 pays once per 2 requests and 16 does not (the server hands a queued request the freed slot): a few
     * ms, 20-50 on a machine at load 10, under the 5 % rule's 72 ms (with 8 ms apart, 36 ms: a busy machine's
     * turnaround made 16 gain 5 % and put the point at 32). So throughput doubles with concurrency until the 8 slots
     * are full and then stays flat (the first level gaining < 5 % is then 16).
     */
    @RegisterExtension
    static final TestServer eightSlots = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(20))
            .interTokenDelay(Duration.ofMillis(16)).maxConcurrentSequences(8));
    /** Plenty of sequences, fast tokens: for runs that need no queueing. */
    @RegisterExtension
    static final TestServer fast = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(3))
            .interTokenDelay(Duration.ofMillis(1)));

    private static List<String> args(String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--stddev-output-tokens", "0"));
        args.addAll(List.of(extra));
        return args;
    }

    private static CliRun run(TestServer server, List<String> args) {
        return CliRun.of(server.env(), args.toArray(String[]::new));
    }

    /** Acceptance (a) and (c): the saturation point at the server's 8 slots, files with one row per level. */
    @Test
    void concurrencySweepFindsTheSaturationPointAndWritesOneRowPerLevel(@TempDir Path tmp) throws IOException {
        CliRun run = run(eightSlots, args("--mean-output-tokens", "45", "--max-num-completed-requests", "16",
                "--concurrency-sweep", "4,8,16,32", "--sleep-between", "0", "--results-dir", tmp.toString()));
        assertEquals(0, run.exitCode(), run::toString);

        Matcher saturation = Pattern.compile("saturation point: concurrency (\\d+) ").matcher(run.out());
        assertTrue(saturation.find(), run::toString);
        int point = Integer.parseInt(saturation.group(1));
        assertTrue(run.out().contains("TTFT red line: "), run::toString);
        assertTrue(run.out().contains("failures: none"), run::toString);
        assertTrue(run.out().startsWith("Sweep of m: concurrency sweep 4,8,16,32, 16 requests per level\n"),
                run::toString);

        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(tmp.resolve("m_40_45_sweep.csv"));
        assertEquals(List.of("4", "8", "16", "32"), rows.stream().map(r -> r.get("level")).toList());
        for (CSVRecord row : rows) {
            assertEquals("concurrency", row.get("load_unit"));
            assertEquals("16", row.get("successes"), row::toString);
            assertEquals("16", row.get("total"), row::toString);
            assertEquals("false", row.get("aborted"));
            assertTrue(Double.parseDouble(row.get("output_tok_s")) > 0, row::toString);
        }
        assertEquals(1, rows.stream().filter(r -> r.get("saturation_point").equals("true")).count());
        // the verdict is the first level gaining under 5 % over the one before (recomputed from the rows); which
        // level that is past the server's 8 slots depends on the client's turnaround, which a loaded machine slows
        // (the rule reads each level's output tok/s while it held its concurrency, before its drain; 32 never had
        // 32 in flight with 16 requests, so it is not judged)
        double[] tokS = rows.stream().limit(3).mapToDouble(r -> Double.parseDouble(r.get("held_output_tok_s")))
                .toArray();
        int expected = -1;
        for (int i = 1; i < tokS.length && expected < 0; i++) {
            if (tokS[i] < 1.05 * tokS[i - 1]) expected = Integer.parseInt(rows.get(i).get("level"));
        }
        assertEquals(expected, point, run::toString);
        assertTrue(point >= 8, "throughput grows up to the server's 8 slots: " + run);
        for (int i = 2; i < tokS.length; i++) {
            assertTrue(tokS[i] < 1.3 * tokS[1], "8 slots cap the throughput past concurrency 8: " + run);
        }
        double ttftP90At8 = Double.parseDouble(rows.get(1).get("ttft_p90_ms"));
        double ttftP90At32 = Double.parseDouble(rows.get(3).get("ttft_p90_ms"));
        assertTrue(ttftP90At32 > ttftP90At8, "past 8 slots requests queue: TTFT p90 " + ttftP90At8 + " -> "
                + ttftP90At32);
        // 4 slots take 4 waves of requests where 8 take 2: twice the throughput, less the turnarounds
        assertTrue(Double.parseDouble(rows.get(1).get("output_tok_s"))
                > 1.5 * Double.parseDouble(rows.get(0).get("output_tok_s")), "throughput grows below 8 slots");

        JsonNode sweep = JSON.readTree(tmp.resolve("m_40_45_sweep.json").toFile());
        assertEquals("llmperf4j.sweep/1", sweep.get("schema").asText());
        assertEquals(4, sweep.get("levels").size());
        assertEquals(point, sweep.get("verdict").get("saturation_level").asInt());
        assertEquals(5.0, sweep.get("rules").get("saturation_gain_percent").asDouble());
        assertFalse(sweep.get("stopped").asBoolean());
        for (String level : List.of("4", "8", "16", "32")) {
            Path folder = tmp.resolve("concurrency_" + level);
            assertTrue(Files.exists(folder.resolve("m_40_45_summary.json")), folder::toString);
            assertTrue(Files.exists(folder.resolve("m_40_45_individual_responses.json")), folder::toString);
            List<String> journal = Files.readAllLines(folder.resolve("requests.jsonl"));
            assertEquals(16, journal.size());
            assertFalse(journal.get(0).contains("send_lag"), "a closed loop has no schedule: " + journal.get(0));
            JsonNode llmperf = JSON.readTree(folder.resolve("m_40_45_summary.json").toFile());
            assertEquals(Integer.parseInt(level), llmperf.get("num_concurrent_requests").asInt());
        }
        String html = Files.readString(tmp.resolve("m_40_45_report.html"));
        assertTrue(html.contains("id=\"sweep\""), "the report has the sweep section");
    }

    /** Acceptance (b): when the cap binds, latency from the intended send exceeds latency from the actual send. */
    @Test
    void openLoopWithABindingCapShowsIntendedAboveActualLatency(@TempDir Path tmp) throws IOException {
        // 2 in flight of ~20 ms each carry ~100 req/s; 400 req/s are offered, so arrivals queue behind the cap
        CliRun run = run(fast, args("--mean-output-tokens", "16", "--max-num-completed-requests", "30",
                "--request-rate", "400", "--arrival", "constant", "--max-concurrency", "2",
                "--warmup-requests", "2", "--results-dir", tmp.toString()));
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Open loop: offered 400 req/s, constant arrivals (seed 11111), at most 2 in "
                + "flight\n"), run::toString);
        assertTrue(run.out().contains("\nTTFT from intended send "), run::toString);
        assertTrue(run.out().contains("Warmup: 2 requests, sent first and excluded from every result"),
                run::toString);
        assertTrue(run.out().matches("(?s).*\nCompleted Requests Per Minute: [0-9.]+\n"),
                "stdout ends with llmperf's block: " + run);
        assertTrue(run.out().contains("Number Of Completed Requests: 30\n"), "warmup excluded: " + run);

        JsonNode open = JSON.readTree(tmp.resolve("m_40_16_open_loop.json").toFile());
        assertEquals("llmperf4j.open_loop/1", open.get("schema").asText());
        assertEquals(30, open.get("requests_sent").asInt());
        assertEquals(2, open.get("max_concurrency").asInt());
        assertTrue(open.get("max_backlog").asInt() > 0, open::toString);
        assertTrue(open.get("ttft_from_intended_ms").get("p50").asDouble()
                > open.get("ttft_from_actual_ms").get("p50").asDouble(), open::toString);
        assertTrue(open.get("e2e_from_intended_ms").get("p90").asDouble()
                > open.get("e2e_from_actual_ms").get("p90").asDouble(), open::toString);
        assertTrue(open.get("achieved_send_requests_per_s").asDouble()
                < open.get("scheduled_requests_per_s").asDouble(), open::toString);

        JsonNode individual = JSON.readTree(tmp.resolve("m_40_16_individual_responses.json").toFile());
        assertEquals(30, individual.size(), "llmperf's files hold the measured requests only");
        List<String> journal = Files.readAllLines(tmp.resolve("requests.jsonl"));
        assertEquals(30, journal.size());
        // each request's lag behind its schedule, the summary's send lag request by request: the summary's counts to
        // when the request left the client, the journal's to its send stamp, with the client's delay beside it
        long maxLag = 0;
        for (String line : journal) {
            JsonNode r = JSON.readTree(line);
            long lag = r.path("send_lag_nanos").asLong(-1);
            long clientDelay = r.path("client_delay_nanos").asLong(-1);
            assertTrue(lag >= 0 && clientDelay >= 0, line);
            maxLag = Math.max(maxLag, lag + clientDelay);
        }
        assertEquals(open.get("send_lag_ms").get("max").asDouble(), maxLag / 1e6,
                open.get("send_lag_ms").get("max").asDouble() * 0.002, "the summary's max, 3 significant digits");
        // the CSV has the same lag for each request
        Map<String, Long> lagById = new HashMap<>();
        for (String line : journal) {
            JsonNode r = JSON.readTree(line);
            lagById.put(r.get("client_request_id").asText(), r.get("send_lag_nanos").asLong());
        }
        List<CSVRecord> csv = TokenBenchmarkCommandTest.csvRows(tmp.resolve("m_40_16_requests.csv"));
        assertEquals(30, csv.size());
        for (CSVRecord row : csv) {
            assertEquals(lagById.get(row.get("client_request_id")) / 1e9, Double.parseDouble(row.get("send_lag_s")),
                    1e-9, row::toString);
        }
        JsonNode llmperf = JSON.readTree(tmp.resolve("m_40_16_summary.json").toFile());
        assertTrue(llmperf.get("llmperf4j_load").asText().startsWith("open loop, 400 req/s constant"),
                llmperf::toString);

        // the HTML, as written and as `report DIR` rebuilds it from the files: the rate and arrivals, the cap (not
        // a "Concurrency"), the arrivals instead of "Requests to complete", and the send lag and TTFT from the
        // intended send of _open_loop.json
        String written = Files.readString(tmp.resolve("m_40_16_report.html"));
        CliRun rebuilt = CliRun.of(Map.of(), "report", tmp.toString());
        assertEquals(0, rebuilt.exitCode(), rebuilt::toString);
        JsonNode lag = open.get("send_lag_ms");
        JsonNode ttft = open.get("ttft_from_intended_ms");
        for (String page : List.of(written, Files.readString(tmp.resolve("m_40_16_report.html")))) {
            assertEquals("open loop, 400 req/s, constant arrivals (seed 11111)", HtmlRows.value(page, "Load"));
            assertEquals("2", HtmlRows.value(page, "At most in flight"));
            assertEquals("30", HtmlRows.value(page, "Arrivals scheduled"));
            assertNull(HtmlRows.value(page, "Concurrency"), "an open loop sets no concurrency");
            assertNull(HtmlRows.value(page, "Requests to complete"));
            assertEquals(String.format(Locale.ROOT, "p50 %.3f ms, p99 %.3f ms, max %.3f ms (intended to actual send)",
                    lag.get("p50").asDouble(), lag.get("p99").asDouble(), lag.get("max").asDouble()),
                    HtmlRows.value(page, "Send lag"));
            assertEquals(String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms (the tables count from the actual send)",
                    ttft.get("p50").asDouble(), ttft.get("p99").asDouble()),
                    HtmlRows.value(page, "TTFT from intended send"));
            assertTrue(page.contains(" \u00b7 open loop, 400 req/s, constant arrivals (seed 11111) \u00b7 at most 2 in "
                    + "flight \u00b7 "), "the header: rate, arrivals, cap");
        }
    }

    /** Acceptance (d): JMH-compatible JSON with one raw score per fork and iteration, and the iteration CSV. */
    @Test
    void iterationsWriteJmhJsonOfTheRightShape(@TempDir Path tmp) throws IOException {
        CliRun run = run(fast, args("--mean-output-tokens", "8", "--max-num-completed-requests", "8",
                "--num-concurrent-requests", "2", "--iterations", "2", "--warmup-iterations", "1",
                "--iteration-time", "0.3", "--forks", "2", "--results-dir", tmp.toString()));
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("# Warmup: 1 iteration, 300 ms each\n"), run::toString);
        assertTrue(run.out().contains("# Fork: 2 of 2\n"), run::toString);
        assertTrue(run.out().contains("Iteration   2: "), run::toString);
        assertTrue(run.out().contains("Result \"llmperf4j.token_benchmark\":"), run::toString);
        assertTrue(run.out().contains("\nBenchmark "), "JMH's summary table: " + run);

        JsonNode jmh = JSON.readTree(tmp.resolve("m_40_8_jmh.json").toFile());
        assertTrue(jmh.isArray(), jmh::toString);
        assertEquals(1, jmh.size());
        JsonNode entry = jmh.get(0);
        for (String key : List.of("jmhVersion", "benchmark", "mode", "threads", "forks", "jdkVersion", "vmName",
                "vmVersion", "warmupIterations", "warmupTime", "warmupBatchSize", "measurementIterations",
                "measurementTime", "measurementBatchSize", "params", "primaryMetric", "secondaryMetrics")) {
            assertTrue(entry.has(key), key + " in " + entry);
        }
        assertEquals("thrpt", entry.get("mode").asText());
        assertEquals(2, entry.get("threads").asInt());
        assertEquals(2, entry.get("forks").asInt());
        assertEquals(1, entry.get("warmupIterations").asInt());
        assertEquals(2, entry.get("measurementIterations").asInt());
        assertEquals("300 ms", entry.get("measurementTime").asText());
        assertEquals("2", entry.get("params").get("concurrency").asText());
        assertEquals("m", entry.get("params").get("model").asText());
        JsonNode primary = entry.get("primaryMetric");
        assertEquals("tok/s", primary.get("scoreUnit").asText());
        assertEquals(2, primary.get("rawData").size(), "one row per fork");
        for (JsonNode fork : primary.get("rawData")) {
            assertEquals(2, fork.size(), "one score per measurement iteration");
            for (JsonNode score : fork) {
                assertTrue(score.asDouble() > 0, primary::toString);
            }
        }
        assertEquals(2, primary.get("scoreConfidence").size());
        for (String metric : List.of("requests_per_s", "ttft_ms", "tpot_ms")) {
            assertTrue(entry.get("secondaryMetrics").has(metric), metric);
        }
        // as JMH: scorePercentiles are over the scores of rawData; TTFT and TPOT are mean times, JMH's avgt
        JsonNode ttft = entry.get("secondaryMetrics").get("ttft_ms");
        List<Double> scores = new java.util.ArrayList<>();
        ttft.get("rawData").forEach(fork -> fork.forEach(v -> scores.add(v.asDouble())));
        assertEquals(4, scores.size(), ttft::toString);
        assertEquals(java.util.Collections.min(scores), ttft.get("scorePercentiles").get("0.0").asDouble(), 1e-9);
        assertEquals(java.util.Collections.max(scores), ttft.get("scorePercentiles").get("100.0").asDouble(), 1e-9);
        assertEquals("avgt", ttft.get("mode").asText());
        assertTrue(ttft.get("perRequestPercentiles").get("100.0").asDouble()
                >= ttft.get("scorePercentiles").get("100.0").asDouble(), ttft::toString);
        assertTrue(java.util.regex.Pattern.compile("\\nllmperf4j\\.token_benchmark:ttft_ms\\s+2\\s+m\\s+avgt\\s+4\\s")
                .matcher(run.out()).find(), run::toString);

        List<CSVRecord> iterations = TokenBenchmarkCommandTest.csvRows(tmp.resolve("m_40_8_iterations.csv"));
        assertEquals(6, iterations.size(), "2 forks x (1 warmup + 2 measurement)");
        assertEquals(2, iterations.stream().filter(r -> r.get("iteration_type").equals("warmup")).count());
        assertEquals(List.of("1", "1", "1", "2", "2", "2"), iterations.stream().map(r -> r.get("fork")).toList());
    }

    /**
     * A sweep run with iterations keeps no level summaries: its sweep file names its warmup iterations (it said
     * "none"), and the page `report DIR` builds says so in its header and that its figures are the sweep file's.
     */
    @Test
    void aSweepOfIterationsNamesItsWarmupAndWhereItsFiguresComeFrom(@TempDir Path tmp) throws IOException {
        CliRun run = run(fast, args("--mean-output-tokens", "8", "--num-concurrent-requests", "2",
                "--concurrency-sweep", "1,2", "--sleep-between", "0", "--iterations", "2",
                "--warmup-iterations", "1", "--iteration-time", "0.3", "--results-dir", tmp.toString()));
        assertEquals(0, run.exitCode(), run::toString);
        Path sweepFile = tmp.resolve("m_40_8_sweep.json");
        JsonNode sweep = JSON.readTree(sweepFile.toFile());
        assertEquals("1 iteration of 300 ms per fork", sweep.get("warmup").asText(), sweep::toString);

        CliRun report = CliRun.of(Map.of(), "report", tmp.toString());
        assertEquals(0, report.exitCode(), report::toString);
        String page = Files.readString(tmp.resolve("m_40_8_report.html"));
        assertTrue(page.contains("concurrency sweep 1,2; 1 warmup + 2 measurement iterations of 300 ms, 1 fork \u00b7 "
                + "2 levels of concurrency \u00b7 warmup 1 iteration of 300 ms per fork</p>"), page);
        assertTrue(page.contains("The figures are the sweep file's (no level has a summary file: a sweep of "
                + "iterations writes none, and each row pools the level's measurement iterations over every fork)"),
                page);
        assertFalse(page.contains("summary file's"), page);
        assertFalse(page.contains("*_llmperf4j_summary.json"), page);

        // a sweep file written before the warmup iterations were named said "none": the header leaves it out
        Files.writeString(sweepFile, Files.readString(sweepFile).replace("\"1 iteration of 300 ms per fork\"",
                "\"none\""));
        assertEquals(0, CliRun.of(Map.of(), "report", tmp.toString()).exitCode());
        page = Files.readString(tmp.resolve("m_40_8_report.html"));
        assertFalse(page.contains("warmup none"), page);
        assertTrue(page.contains("2 levels of concurrency</p>"), page);
    }

    /** Acceptance (e): the same workload on each model, one comparison table, a folder per model. */
    @Test
    void severalModelsPrintOneComparisonTable(@TempDir Path tmp) throws IOException {
        CliRun run = CliRun.of(fast.env(), "token-benchmark", "--model", "a,b", "--mean-input-tokens", "40",
                "--mean-output-tokens", "8", "--stddev-output-tokens", "0", "--max-num-completed-requests", "6",
                "--num-concurrent-requests", "2", "--sleep-between", "0", "--results-dir", tmp.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("== a ==\n"), run::toString);
        assertTrue(run.out().contains("== b ==\n"), run::toString);
        int table = run.out().indexOf("Comparison: closed loop, concurrency 2, 6 requests; the same workload");
        assertTrue(table > 0, run::toString);
        List<String> lines = run.out().substring(table).lines().toList();
        assertTrue(lines.get(1).startsWith("model  ok/total"), run::toString);
        assertTrue(lines.get(2).matches("a +6/6 .*"), run::toString);
        assertTrue(lines.get(3).matches("b +6/6 .*"), run::toString);
        assertEquals(4, lines.size(), "the table ends stdout: " + run);

        for (String model : List.of("a", "b")) {
            JsonNode summary = JSON.readTree(tmp.resolve(model).resolve(model + "_40_8_summary.json").toFile());
            assertEquals(model, summary.get("model").asText());
            assertEquals(6, summary.get("results_num_completed_requests").asInt());
        }
        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(tmp.resolve("comparison.csv"));
        assertEquals(List.of("a", "b"), rows.stream().map(r -> r.get("model")).toList());
        assertEquals("a", rows.get(0).get("results_dir"));
        String page = Files.readString(tmp.resolve("comparison_report.html"));
        assertTrue(page.contains("href=\"a/") && page.contains("href=\"b/"), "the run writes the comparison page, "
                + "linking each model's folder");
    }

    @Test
    void rateSweepWithDurationRunsEachLevelForItsWindow(@TempDir Path tmp) throws IOException {
        CliRun run = run(fast, args("--mean-output-tokens", "4", "--rate-sweep", "20,40", "--duration", "0.5",
                "--sleep-between", "0", "--results-dir", tmp.toString()));
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("\nrate (req/s)  ok/total"), run::toString);
        List<CSVRecord> rows = TokenBenchmarkCommandTest.csvRows(tmp.resolve("m_40_4_sweep.csv"));
        assertEquals(List.of("20", "40"), rows.stream().map(r -> r.get("level")).toList());
        assertEquals("req/s", rows.get(0).get("load_unit"));
        // --duration without an explicit --max-num-completed-requests: arrivals for the window, not 10 requests
        assertTrue(Integer.parseInt(rows.get(1).get("total")) > 10, rows.get(1)::toString);
        assertTrue(Files.exists(tmp.resolve("rate_40").resolve("m_40_4_open_loop.json")));
    }
}
