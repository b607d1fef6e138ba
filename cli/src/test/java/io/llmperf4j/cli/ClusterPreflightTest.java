package io.llmperf4j.cli;

import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.report.csv.RequestCsvReader;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The workers' pre-run check, end to end: two load workers in this JVM, each with its own key (as each reads its
 * own OPENAI_API_KEY), a coordinator ({@code token-benchmark --cluster}, in this JVM), and the simulated server
 * with an API key and one served model, behind a relay that counts every request reaching it by the key it carried.
 */
class ClusterPreflightTest {
    private static final String RIGHT_KEY = "right-key-1234";
    private static final String WRONG_KEY = "wrong-key-5678";
    private static final String MODEL = "served-model";

    private static SimulatedServer server;
    private static CountingProxy proxy;
    private static String cluster;
    private static LocalWorkers workers;
    private static final List<AtomicReference<String>> keys = List.of(new AtomicReference<>(),
            new AtomicReference<>());
    private static List<String> workerIds;

    @BeforeAll
    static void start() throws IOException {
        server = SimulatedServer.start(SimulatorConfig.builder().apiKey(RIGHT_KEY).modelIds(MODEL)
                .acceptAnyModel(false).timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1))
                .build());
        proxy = new CountingProxy(server.port());
        cluster = "test-" + UUID.randomUUID();
        workers = LocalWorkers.start(cluster, null, List.of(api -> keys.get(0).get(), api -> keys.get(1).get()));
        workerIds = workers.ids();
    }

    @AfterAll
    static void stop() throws IOException {
        if (workers != null) workers.close();
        if (proxy != null) proxy.close();
        if (server != null) server.close();
    }

    /** The coordinator's own key is neither worker's: the workers send theirs. */
    private static Map<String, String> env() {
        return Map.of("OPENAI_API_BASE", proxy.baseUrl(), "OPENAI_API_KEY", "the-coordinators-key");
    }

    private static CliRun run(String model, Path results) throws IOException {
        return run(model, results, env());
    }

    private static CliRun run(String model, Path results, Map<String, String> env) throws IOException {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", model, "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "5", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "6", "--num-concurrent-requests", "2", "--timeout", "60",
                "--no-client-warmup", "--results-dir", results.toString(), "--cluster", cluster, "--workers", "2",
                "--bind", "127.0.0.1:" + LoopbackPorts.next(), "--worker-wait", "60"));
        for (String w : workerIds) args.addAll(List.of("--member", w));
        return CliRun.of(env, args.toArray(String[]::new));
    }

    @Test
    @Timeout(120)
    void aWorkerWithAWrongOrMissingKeyStopsTheRunBeforeItsFirstRequest(@TempDir Path tmp) throws IOException {
        keys.get(0).set(WRONG_KEY);
        keys.get(1).set(RIGHT_KEY);
        int wrongBefore = proxy.posts(WRONG_KEY);
        int rightBefore = proxy.posts(RIGHT_KEY);
        int allBefore = proxy.posts(null);
        CliRun run = run(MODEL, tmp.resolve("wrong"));

        assertEquals(ExitCodes.FAILURE, run.exitCode(), run::toString);
        String wrong = "worker " + workerIds.get(0) + ": the server refused the pre-run request (one request of one "
                + "token) with HTTP 401: Incorrect API key provided; check the API key in that worker's "
                + "OPENAI_API_KEY";
        assertTrue(run.err().contains("the pre-run check failed on 1 of 2 workers: " + wrong), run::toString);
        assertTrue(run.err().contains("each worker sends the key in its own OPENAI_API_KEY"), run::toString);
        assertFalse(run.err().contains("worker " + workerIds.get(1) + ": "), "the right key is no problem: " + run);
        assertFalse(run.err().contains(WRONG_KEY), run::toString);
        // at the server: each worker's one check, nothing of the run
        assertEquals(1, proxy.posts(WRONG_KEY) - wrongBefore, run::toString);
        assertEquals(1, proxy.posts(RIGHT_KEY) - rightBefore, run::toString);
        assertEquals(2, proxy.posts(null) - allBefore, run::toString);

        // a worker without the variable: named, and it sends nothing
        keys.get(0).set(null);
        rightBefore = proxy.posts(RIGHT_KEY);
        allBefore = proxy.posts(null);
        CliRun unset = run(MODEL, tmp.resolve("unset"));
        assertEquals(ExitCodes.FAILURE, unset.exitCode(), unset::toString);
        assertTrue(unset.err().contains("the pre-run check failed on 1 of 2 workers: worker " + workerIds.get(0)
                + ": OPENAI_API_KEY is not set on that worker, so it sent nothing"), unset::toString);
        assertEquals(1, proxy.posts(RIGHT_KEY) - rightBefore, unset::toString);
        assertEquals(1, proxy.posts(null) - allBefore, unset::toString);
    }

    @Test
    @Timeout(120)
    void withBothKeysRightTheRunProceeds(@TempDir Path tmp) throws IOException {
        keys.get(0).set(RIGHT_KEY);
        keys.get(1).set(RIGHT_KEY);
        int allBefore = proxy.posts(null);
        Path results = tmp.resolve("ok");
        CliRun run = run(MODEL, results);

        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.err().contains("pre-run check"), run::toString);
        List<RequestRecord> records = RequestCsvReader.read(results.resolve("served-model_40_5_requests.csv"));
        assertEquals(6, records.size(), run::toString);
        assertTrue(records.stream().allMatch(RequestRecord::succeeded), run::toString);
        assertEquals(workerIds.stream().sorted().toList(), records.stream().map(RequestRecord::workerId)
                .distinct().sorted().toList(), run::toString);
        assertEquals(2 + 6, proxy.posts(null) - allBefore, "two checks and the run's 6 requests: " + run);
    }

    @Test
    @Timeout(120)
    void aModelTheServerDoesNotServeStopsTheRunNamingThe404(@TempDir Path tmp) throws IOException {
        keys.get(0).set(RIGHT_KEY);
        keys.get(1).set(RIGHT_KEY);
        int allBefore = proxy.posts(null);
        CliRun run = run("not-served", tmp.resolve("model"));

        assertEquals(ExitCodes.FAILURE, run.exitCode(), run::toString);
        assertTrue(run.err().contains("the pre-run check failed on 2 of 2 workers: "), run::toString);
        for (String id : workerIds) {
            assertTrue(run.err().contains("worker " + id + ": the server refused the pre-run request (one request "
                    + "of one token) with HTTP 404: The model `not-served` does not exist; check --model "
                    + "'not-served'"), run::toString);
        }
        assertFalse(run.err().contains("each worker sends the key"), "not a key problem: " + run);
        assertEquals(2, proxy.posts(null) - allBefore, "the two checks only: " + run);
        assertFalse(Files.exists(tmp.resolve("model").resolve("not-served_40_5_requests.csv")), run::toString);
        // the coordinator's key is refused too, so it cannot list the served ids: the line keeps its hint
        assertTrue(run.err().contains("check --model 'not-served' (GET <base>/models lists the served ids)"),
                run::toString);

        // with a key the server takes on the coordinator too, the line names the served ids, as one machine's does
        Map<String, String> rightHere = new java.util.HashMap<>(env());
        rightHere.put("OPENAI_API_KEY", RIGHT_KEY);
        CliRun listed = run("not-served", tmp.resolve("listed"), rightHere);
        assertEquals(ExitCodes.FAILURE, listed.exitCode(), listed::toString);
        for (String id : workerIds) {
            assertTrue(listed.err().contains("worker " + id + ": the server refused the pre-run request (one request "
                    + "of one token) with HTTP 404: The model `not-served` does not exist; the server serves: "
                    + MODEL + "; check --model 'not-served' and that the base URL ends in /v1"), listed::toString);
        }
        assertFalse(listed.err().contains(RIGHT_KEY), listed::toString);
    }
}
