package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compare over folders of real runs with --iterations against the embedded server: two whose servers differ in time
 * to first token (5 ms against 60 ms), one more with another token shape, prompt mode, sampling parameters and
 * iteration layout, one as a run written before {@code <base>_jmh.json} recorded the settings, and two sweeps of two
 * measured iterations a level. The runs are shared by every test.
 */
class CompareIterationsCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path tmp;
    static Path fast;
    static Path slow;
    static Path otherShape;
    static Path sweepA;
    static Path sweepB;
    /** The endpoint each run sent to (its own server). */
    static final Map<Path, String> ENDPOINTS = new HashMap<>();

    @BeforeAll
    static void runAll() {
        fast = benchmark("fast", Duration.ofMillis(5), "--iterations", "3", "--iteration-time", "0.5",
                "--num-concurrent-requests", "2");
        slow = benchmark("slow", Duration.ofMillis(60), "--iterations", "3", "--iteration-time", "0.5",
                "--num-concurrent-requests", "2");
        otherShape = benchmark("other", Duration.ofMillis(5), "--iterations", "2", "--iteration-time", "0.5",
                "--forks", "2", "--num-concurrent-requests", "2", "--mean-output-tokens", "20", "--prompt-mode",
                "exact", "--additional-sampling-params",
                "{\"temperature\": 0.2, \"user\": \"sk-abcdefghijklmnopqrstu\"}"); // a key-shaped value: redacted
        // one server for both sweeps: the same endpoint, nothing differs
        try (SimulatedServer server = server(Duration.ofMillis(5))) {
            sweepA = benchmark(server, "sweep-a", "--iterations", "2", "--iteration-time", "0.3",
                    "--concurrency-sweep", "1,2", "--sleep-between", "0");
            sweepB = benchmark(server, "sweep-b", "--iterations", "2", "--iteration-time", "0.3",
                    "--concurrency-sweep", "1,2", "--sleep-between", "0");
        }
    }

    private static SimulatedServer server(Duration ttft) {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(ttft)
                .interTokenDelay(Duration.ofMillis(4)).build());
    }

    /** A run against a server of its own. */
    private static Path benchmark(String name, Duration ttft, String... load) {
        try (SimulatedServer server = server(ttft)) {
            return benchmark(server, name, load);
        }
    }

    private static Path benchmark(SimulatedServer server, String name, String... load) {
        Path dir = tmp.resolve(name);
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-output-tokens",
                "10", "--stddev-output-tokens", "0", "--warmup-iterations", "0", "--no-client-warmup",
                "--results-dir", dir.toString()));
        args.addAll(List.of(load)); // the last occurrence wins: --mean-output-tokens 20 overrides
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run::toString);
        ENDPOINTS.put(dir, server.baseUrl() + "/chat/completions");
        return dir;
    }

    /** The QA's finding: every latency rule was NOT EVALUATED on iterations, so even an improvement exited 3. */
    @Test
    void aTtftMeanRegressionExits3AndTheImprovementPasses() {
        CliRun worse = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString(), "--fail-if",
                "ttft_mean>+10%");
        assertEquals(3, worse.exitCode(), worse::toString);
        assertTrue(worse.out().contains("concurrency 2: FAIL ttft_mean>+10%: TTFT mean changed by +"), worse::toString);

        CliRun better = CliRun.of(Map.of(), "compare", slow.toString(), fast.toString(), "--fail-if",
                "ttft_mean>+10%,tpot_mean>+50%,output_throughput<-5%,request_throughput<-5%,error_rate>0.01");
        assertEquals(0, better.exitCode(), better::toString);
        for (String rule : List.of("ttft_mean>+10%", "tpot_mean>+50%", "output_throughput<-5%",
                "request_throughput<-5%", "error_rate>0.01")) {
            assertTrue(better.out().contains("concurrency 2: pass " + rule + ": "), rule + ": " + better);
        }
        // three iterations a side: a 99.9 % Welch interval on every mean (whether it excludes 0 depends on the timing)
        assertTrue(better.out().contains("interval: Welch's t on the difference of the means over the measured "
                + "iterations, 99.9 %"), better::toString);
        String ttftRow = better.out().lines().filter(l -> l.startsWith("concurrency 2          TTFT ")).findFirst()
                .orElseThrow(() -> new AssertionError(better.toString()));
        assertTrue(ttftRow.matches(".* mean .*\\[[-+][0-9.]+%, [-+][0-9.]+%\\].* ms"), ttftRow);
        assertFalse(better.out().contains("too few"), better::toString);
    }

    @Test
    void aPercentileRuleIsNotEvaluatedAndTheOutputSaysItFailsTheGate() {
        CliRun run = CliRun.of(Map.of(), "compare", slow.toString(), fast.toString(), "--fail-if",
                "ttft_p90>+10%,output_throughput<-5%");
        assertEquals(3, run.exitCode(), run::toString);
        assertTrue(run.out().contains("concurrency 2: NOT EVALUATED ttft_p90>+10%: iterations keep one row per "
                + "iteration (its means), not per-request values, so no ttft p90: use ttft_mean"), run::toString);
        assertTrue(run.out().endsWith("1 of 2 verdicts NOT EVALUATED: a gate never passes on a rule it could not "
                + "evaluate, so these fail it (exit 3) as a crossed rule does; drop or replace those rules (each line "
                + "says why and what there is instead)\n"), run::toString);
    }

    /**
     * The QA's jmh1 against jmh3: another token shape, forks and iteration time went unmentioned; and an iterations
     * folder recorded no endpoint, API, tokenizer, prompt mode or sampling parameters: its JMH file's params do now.
     */
    @Test
    void settingsThatDifferAreNamedAsForRuns() throws IOException {
        CliRun run = CliRun.of(Map.of(), "compare", fast.toString(), otherShape.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals("compare: the two ran with different settings; a delta may come from these, not from the server "
                + "alone:\n"
                + "  differs: endpoint: " + ENDPOINTS.get(fast) + " vs " + ENDPOINTS.get(otherShape) + "\n"
                + "  differs: token shape: input 550±150, output 10±0 vs input 550±150, output 20±0\n"
                + "  differs: prompt mode: llmperf vs exact\n"
                + "  differs: sampling params (max_tokens source): {} vs {\"temperature\":0.2,\"user\":\"[REDACTED]\"}\n"
                + "  differs: iterations: 0 warmup + 3 measurement iterations of 500 ms, 1 fork vs 0 warmup + 2 "
                + "measurement iterations of 500 ms, 2 forks\n", run.err(), run::toString);

        // two servers, the same settings otherwise: the endpoint alone, and nothing left unchecked
        CliRun endpoints = CliRun.of(Map.of(), "compare", fast.toString(), slow.toString());
        assertEquals("compare: the two ran with different settings; a delta may come from these, not from the server "
                + "alone:\n  differs: endpoint: " + ENDPOINTS.get(fast) + " vs " + ENDPOINTS.get(slow) + "\n",
                endpoints.err(), endpoints::toString);

        // the JMH file's params as the run wrote them: the summary's key names, no secret
        JsonNode params = JSON.readTree(otherShape.resolve("m_550_20_jmh.json").toFile()).get(0).get("params");
        List<String> keys = new ArrayList<>();
        params.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("concurrency", "model", "endpoint", "llm_api", "tokenizer", "prompt_mode",
                "additional_sampling_params", "mean_input_tokens", "stddev_input_tokens", "mean_output_tokens",
                "stddev_output_tokens", "simulated"), keys);
        assertEquals("false", params.get("simulated").asText(), "a real endpoint's, recorded as such");
        assertEquals("openai", params.get("llm_api").asText());
        assertEquals("llama-2 (built in)", params.get("tokenizer").asText());
        assertFalse(params.toString().contains("sk-abcdefghijklmnopqrstu"), params::toString);
    }

    /** A folder written before the JMH file recorded the settings: what was not checked is said, naming it. */
    @Test
    void anOlderFolderSaysWhatWasNotChecked() throws IOException {
        Path older = tmp.resolve("older");
        Files.createDirectories(older);
        for (String name : List.of("m_550_10_iterations.csv", "m_550_10_jmh.json")) {
            Files.copy(fast.resolve(name), older.resolve(name));
        }
        ArrayNode jmh = (ArrayNode) JSON.readTree(older.resolve("m_550_10_jmh.json").toFile());
        for (JsonNode entry : jmh) {
            ((ObjectNode) entry.get("params")).retain("concurrency", "model");
        }
        JSON.writeValue(older.resolve("m_550_10_jmh.json").toFile(), jmh);

        CliRun run = CliRun.of(Map.of(), "compare", older.toString(), otherShape.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals("compare: the two ran with different settings; a delta may come from these, not from the server "
                + "alone:\n"
                + "  differs: token shape (means): input 550, output 10 vs input 550, output 20\n"
                + "  differs: iterations: 0 warmup + 3 measurement iterations of 500 ms, 1 fork vs 0 warmup + 2 "
                + "measurement iterations of 500 ms, 2 forks\n"
                + "compare: " + older + " is an iterations folder written before _jmh.json recorded the run's "
                + "settings: its endpoint, LLM API, tokenizer, prompt mode and sampling parameters (and the token "
                + "shape's spread) were not checked\n", run.err(), run::toString);
    }

    /** The QA's swit/swit2: two measured iterations a level gave zero-width intervals marked significant. */
    @Test
    void twoIterationsALevelGiveNoIntervalAndSaySo() {
        CliRun run = CliRun.of(Map.of(), "compare", sweepA.toString(), sweepB.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().startsWith("Iterations compared level by level (matched by level): 2 in both\n"),
                run::toString);
        for (String level : List.of("concurrency 1", "concurrency 2")) {
            assertTrue(run.out().contains(level + ": too few measured iterations for an interval (2 and 2; at least 3 "
                    + "a side): no CI, no *"), level + ": " + run);
        }
        assertFalse(run.out().lines().anyMatch(l -> l.startsWith("concurrency") && l.contains("] *")), run::toString);
        assertEquals("", run.err(), "the same settings, every one recorded: " + run);
    }
}
