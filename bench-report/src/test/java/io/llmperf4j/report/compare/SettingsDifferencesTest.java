package io.llmperf4j.report.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.output.IterationsFile;
import io.llmperf4j.report.output.JmhFile;
import io.llmperf4j.report.output.SweepFiles;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings two compared runs differ in, one line each, read from their summaries. */
class SettingsDifferencesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path run(Path dir, String endpoint, int concurrency, int in, int out, String load)
            throws Exception {
        Files.createDirectories(dir);
        String metadata = load == null ? "{}" : "{\"llmperf4j_load\": \"" + load + "\"}";
        Files.writeString(dir.resolve("m_" + in + "_" + out + "_llmperf4j_summary.json"), """
                {"schema": "llmperf4j.summary/3", "settings": {"model": "m", "endpoint": "%s", "llm_api": "openai",
                 "mean_input_tokens": %d, "stddev_input_tokens": 150, "mean_output_tokens": %d,
                 "stddev_output_tokens": 80, "num_concurrent_requests": %d, "timeout_s": 90,
                 "max_num_completed_requests": 8, "additional_sampling_params": {}, "metadata": %s,
                 "tokenizer": "llama-2 (built in)", "prompt_mode": "llmperf", "seed": 11111}}
                """.formatted(endpoint, in, out, concurrency, metadata));
        return dir;
    }

    @Test
    void namesEverySettingThatDiffersBaselineFirst(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), "http://127.0.0.1:1/v1/chat/completions", 6, 200, 40, null);
        Path b = run(tmp.resolve("b"), "http://127.0.0.1:2/v1/chat/completions", 1, 550, 20, null);
        assertEquals(List.of(
                "differs: endpoint: http://127.0.0.1:1/v1/chat/completions vs http://127.0.0.1:2/v1/chat/completions",
                "differs: load: concurrency 6 vs concurrency 1",
                "differs: token shape: input 200±150, output 40±80 vs input 550±150, output 20±80"),
                SettingsDifferences.between(a, b));
    }

    @Test
    void aClosedLoopAgainstAnOpenLoopIsNamed(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), "e", 4, 550, 150, null);
        Path b = run(tmp.resolve("b"), "e", 4, 550, 150, "open loop, 4 req/s poisson, seed 11111");
        assertEquals(List.of("differs: load: concurrency 4 vs open loop, 4 req/s poisson, seed 11111"),
                SettingsDifferences.between(a, b));
    }

    @Test
    void identicalSettingsGiveNoLine(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), "e", 4, 550, 150, null);
        Path b = run(tmp.resolve("b"), "e", 4, 550, 150, null);
        assertEquals(List.of(), SettingsDifferences.between(a, b));
        assertEquals(List.of(), SettingsDifferences.between(a, tmp.resolve("missing")));
    }

    /**
     * An iterations folder as a run with --iterations writes it: {@code <base>_iterations.csv} (the project's writer)
     * and {@code <base>_jmh.json} (bench-engine's JmhJsonFormat, whose fields this mirrors; the report cannot use it).
     */
    private static Path iterations(Path dir, String base, int concurrency, int forks, int warmup, int measured,
                                   String time) throws Exception {
        return iterations(dir, base, concurrency, forks, warmup, measured, time, "");
    }

    /** With {@code settings}, the params' entries that record the run's settings (", \"endpoint\": …"). */
    private static Path iterations(Path dir, String base, int concurrency, int forks, int warmup, int measured,
                                   String time, String settings) throws Exception {
        List<IterationsFile.Row> rows = new ArrayList<>();
        for (int i = 1; i <= measured; i++) {
            rows.add(new IterationsFile.Row(String.valueOf(concurrency), "concurrency", 1, "measurement", i, i, 1, 100,
                    100.0, 5, 0, 5.0, 30.0, 5.0));
        }
        IterationsFile.write(dir, base, rows);
        Files.writeString(dir.resolve(base + "_jmh.json"), """
                [ {"jmhVersion": "llmperf4j", "benchmark": "llmperf4j.token_benchmark", "mode": "thrpt",
                   "threads": %d, "forks": %d, "warmupIterations": %d, "warmupTime": "%s", "warmupBatchSize": 1,
                   "measurementIterations": %d, "measurementTime": "%s", "measurementBatchSize": 1,
                   "params": {"concurrency": "%d", "model": "llmperf4j-sim"%s}, "primaryMetric": {}} ]
                """.formatted(concurrency, forks, warmup, time, measured, time, concurrency, settings));
        return dir;
    }

    /** The QA's jmh1 against jmh3: other token shape, forks, iterations and time. */
    @Test
    void iterationsFoldersNameTheirTokenShapeLoadAndIterations(@TempDir Path tmp) throws Exception {
        Path a = iterations(tmp.resolve("a"), "llmperf4j-sim_100_40", 4, 2, 1, 3, "2 s");
        Path b = iterations(tmp.resolve("b"), "llmperf4j-sim_300_10", 2, 1, 0, 2, "1 s");
        assertEquals(List.of(
                "differs: load: concurrency 4 vs concurrency 2",
                "differs: token shape (means): input 100, output 40 vs input 300, output 10",
                "differs: iterations: 1 warmup + 3 measurement iterations of 2 s, 2 forks vs 0 warmup + 2 measurement "
                        + "iterations of 1 s, 1 fork"),
                SettingsDifferences.between(a, b));
        Path same = iterations(tmp.resolve("c"), "llmperf4j-sim_100_40", 4, 2, 1, 3, "2 s");
        assertEquals(List.of(), SettingsDifferences.between(a, same));
        assertEquals(Optional.of(a + " is an iterations folder written before _jmh.json recorded the run's "
                + "settings: its endpoint, LLM API, tokenizer, prompt mode and sampling parameters (and the token "
                + "shape's spread) were not checked"), SettingsDifferences.unrecorded(a, same));
    }

    private static String settings(String endpoint, String api, String promptMode, String sampling, int stddevOut) {
        return """
                , "endpoint": "%s", "llm_api": "%s", "tokenizer": "llama-2 (built in)", "prompt_mode": "%s",
                "additional_sampling_params": "%s", "mean_input_tokens": "100", "stddev_input_tokens": "150",
                "mean_output_tokens": "40", "stddev_output_tokens": "%d"
                """.formatted(endpoint, api, promptMode, sampling.replace("\"", "\\\""), stddevOut);
    }

    /** Folders whose JMH file records the settings: each that differs is named, as for runs, in a run's order. */
    @Test
    void iterationsFoldersThatRecordTheirSettingsNameThemAsRunsDo(@TempDir Path tmp) throws Exception {
        Path a = iterations(tmp.resolve("a"), "llmperf4j-sim_100_40", 4, 1, 0, 3, "1 s",
                settings("http://127.0.0.1:1/v1/chat/completions", "openai", "llmperf", "{}", 80));
        Path b = iterations(tmp.resolve("b"), "llmperf4j-sim_100_40", 2, 1, 0, 3, "1 s",
                settings("http://127.0.0.1:2/v1/chat/completions", "openai-completions", "exact",
                        "{\"temperature\":0.2}", 0));
        assertEquals(List.of(
                "differs: endpoint: http://127.0.0.1:1/v1/chat/completions vs http://127.0.0.1:2/v1/chat/completions",
                "differs: llm api: openai vs openai-completions",
                "differs: load: concurrency 4 vs concurrency 2",
                "differs: token shape: input 100±150, output 40±80 vs input 100±150, output 40±0",
                "differs: prompt mode: llmperf vs exact",
                "differs: sampling params (max_tokens source): {} vs {\"temperature\":0.2}"),
                SettingsDifferences.between(a, b));
        assertEquals(Optional.empty(), SettingsDifferences.unrecorded(a, b), "both record them");

        // against a folder written before: the line names it, and the token shapes compare by their means
        Path older = iterations(tmp.resolve("older"), "llmperf4j-sim_100_20", 4, 1, 0, 3, "1 s");
        assertEquals(List.of("differs: token shape (means): input 100, output 40 vs input 100, output 20"),
                SettingsDifferences.between(a, older));
        assertTrue(SettingsDifferences.unrecorded(a, older).orElseThrow().startsWith(older + " is an iterations "
                + "folder written before"), () -> SettingsDifferences.unrecorded(a, older).toString());
    }

    /** The params a run with iterations writes ({@link JmhFile#settingsParams}), as JSON entries after the model. */
    private static String writtenParams(Boolean simulated) throws Exception {
        BenchmarkSettings settings = BenchmarkSettings.builder()
                .model("llmperf4j-sim")
                .meanInputTokens(100)
                .stddevInputTokens(150)
                .meanOutputTokens(40)
                .stddevOutputTokens(80)
                .numConcurrentRequests(4)
                .timeoutSeconds(90)
                .maxNumCompletedRequests(8)
                .additionalSamplingParams(Map.of())
                .llmApi("openai")
                .metadata(Map.of())
                .endpoint("http://127.0.0.1:1/v1/chat/completions")
                .tokenizer("llama-2 (built in)")
                .promptMode("llmperf")
                .seed(7)
                .stream(true)
                .simulated(simulated)
                .build();
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : JmhFile.settingsParams(settings).entrySet()) {
            out.append(", ").append(JSON.writeValueAsString(e.getKey())).append(": ")
                    .append(JSON.writeValueAsString(e.getValue()));
        }
        return out.toString();
    }

    /**
     * Iterations against the simulator and against a real endpoint (the same loopback address, as a local server's):
     * the JMH files record both, so compare names the difference. A file from before, which wrote {@code simulated}
     * only when true, gives no line against a simulator's (its endpoint is not known).
     */
    @Test
    void iterationsOfTheSimulatorAgainstARealEndpointsNameSimulated(@TempDir Path tmp) throws Exception {
        Path simulator = iterations(tmp.resolve("sim"), "llmperf4j-sim_100_40", 4, 1, 0, 3, "1 s",
                writtenParams(true));
        Path real = iterations(tmp.resolve("real"), "llmperf4j-sim_100_40", 4, 1, 0, 3, "1 s",
                writtenParams(false));
        assertEquals(List.of("differs: simulated: yes (llmperf4j's embedded simulated server) vs no (a real endpoint)"),
                SettingsDifferences.between(simulator, real));
        assertEquals(List.of(), SettingsDifferences.between(real, real));

        Path older = iterations(tmp.resolve("older"), "llmperf4j-sim_100_40", 4, 1, 0, 3, "1 s",
                writtenParams(false).replace(", \"simulated\": \"false\"", ""));
        assertTrue(JmhFile.read(older.resolve("llmperf4j-sim_100_40_jmh.json")).get(0).recordsSettings());
        assertEquals(List.of(), SettingsDifferences.between(simulator, older), "not recorded: not compared");
    }

    /** A sweep run with --iterations: its sweep file's load without the harness part, the iterations apart. */
    @Test
    void sweepsRunWithIterationsNameTheirLoadAndIterationsApart(@TempDir Path tmp) throws Exception {
        Path a = sweepWithIterations(tmp.resolve("a"), "1,2", "1 s");
        Path b = sweepWithIterations(tmp.resolve("b"), "1,4", "2 s");
        assertEquals(List.of(
                "differs: load: concurrency sweep 1,2 vs concurrency sweep 1,4",
                "differs: iterations: 1 warmup + 3 measurement iterations of 1 s, 1 fork vs 1 warmup + 3 measurement "
                        + "iterations of 2 s, 1 fork"),
                SettingsDifferences.between(a, b));
        assertTrue(SettingsDifferences.unrecorded(a, b).isPresent());
    }

    private static Path sweepWithIterations(Path dir, String levels, String time) throws Exception {
        iterations(dir, "m_100_5", 1, 1, 1, 3, time);
        SweepFiles.write(dir, "m_100_5", new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency",
                "concurrency", List.of(1.0), "concurrency sweep " + levels + "; 1 warmup + 3 measurement iterations of "
                        + time + ", 1 fork", "none", new SweepFiles.Rules(5, 2, 5),
                new SweepFiles.Verdict(null, null, null, List.of(), List.of()), false,
                List.of(new SweepFiles.Level(1, "concurrency", "concurrency 1", 6, 6, 0, 0.0, 100.0, 3.0, null, null,
                        null, null, false, false, false, false, false, null, null, null))));
        return dir;
    }

    @Test
    void runsHaveNothingUnrecorded(@TempDir Path tmp) throws Exception {
        Path a = run(tmp.resolve("a"), "e", 4, 550, 150, null);
        assertEquals(Optional.empty(), SettingsDifferences.unrecorded(a, a));
    }

    /** A summary with the client's settings and a warmup as the run records them. */
    private static Path client(Path dir, boolean stream, String connectionMode, String warmup) throws Exception {
        Files.createDirectories(dir);
        String metadata = warmup == null ? "{}" : "{\"llmperf4j_warmup\": \"" + warmup + "\"}";
        Files.writeString(dir.resolve("m_550_150_llmperf4j_summary.json"), """
                {"schema": "llmperf4j.summary/3", "settings": {"model": "m", "endpoint": "e", "llm_api": "openai",
                 "mean_input_tokens": 550, "stddev_input_tokens": 150, "mean_output_tokens": 150,
                 "stddev_output_tokens": 80, "num_concurrent_requests": 4, "timeout_s": 90,
                 "max_num_completed_requests": 8, "additional_sampling_params": {}, "metadata": %s,
                 "tokenizer": "llama-2 (built in)", "prompt_mode": "llmperf", "seed": 11111, "stream": %s,
                 "connection_mode": "%s"}}
                """.formatted(metadata, stream, connectionMode));
        return dir;
    }

    @Test
    void streamingIsNamed(@TempDir Path tmp) throws Exception {
        assertEquals(List.of("differs: streaming: streamed vs --no-stream"), SettingsDifferences.between(
                client(tmp.resolve("a"), true, "preconnect", null), client(tmp.resolve("b"), false, "preconnect", null)));
    }

    @Test
    void connectionModeIsNamed(@TempDir Path tmp) throws Exception {
        assertEquals(List.of("differs: connection mode: preconnect vs per-request"), SettingsDifferences.between(
                client(tmp.resolve("a"), true, "preconnect", null), client(tmp.resolve("b"), true, "per-request", null)));
    }

    @Test
    void warmupIsNamed(@TempDir Path tmp) throws Exception {
        assertEquals(List.of("differs: warmup: none vs 5 requests, excluded from every result"),
                SettingsDifferences.between(client(tmp.resolve("a"), true, "preconnect", null),
                        client(tmp.resolve("b"), true, "preconnect", "5 requests, excluded from every result")));
    }

    @Test
    void aSummaryWithoutTheClientSettingsLeavesThemOut(@TempDir Path tmp) throws Exception {
        Path old = run(tmp.resolve("a"), "e", 4, 550, 150, null);
        assertEquals(List.of(), SettingsDifferences.between(old, client(tmp.resolve("b"), false, "per-request", null)));
    }
}
