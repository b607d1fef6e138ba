package io.llmperf4j.cli;

import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep over a cluster that loses a worker on its first level: that level's "done" line, its table row and a line
 * after the table say which worker was lost and what it took; the next level runs on the other worker, its whole
 * load sent, and its line and row say it ran without the lost one. Two workers (members in this JVM, the lost one
 * terminated as a crash leaves it) and a coordinator ({@code token-benchmark --cluster}), on 127.0.0.1, against the
 * simulated server. A worker JVM killed with SIGKILL, and the silence of the ones that stayed, are
 * DistributedRunTest's.
 */
class SweepLostWorkerTest {
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(30))
            .interTokenDelay(Duration.ofMillis(3))
            .promptTokenCounter(Tokenizers.builtInLlama2()));
    private LocalWorkers workers;

    @AfterEach
    void stopWorkers() {
        if (workers != null) workers.close();
    }

    @Test
    @Timeout(180)
    void eachLevelSaysTheWorkerLostThereOrRanWithoutIt(@TempDir Path tmp) throws Exception {
        String cluster = "test-" + UUID.randomUUID();
        int coordinatorPort = LoopbackPorts.next();
        workers = LocalWorkers.start(cluster, 2, "EMPTY");
        List<String> ids = workers.ids();
        // concurrency 2 then 4, 20 requests a level of about 0.4 s each: the first level lasts about 4 s
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "meta-llama/Llama-2-7b-chat-hf",
                "--mean-input-tokens", "200", "--stddev-input-tokens", "0", "--mean-output-tokens", "120",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "20", "--concurrency-sweep", "2,4",
                "--sleep-between", "0", "--timeout", "120", "--no-client-warmup",
                "--results-dir", tmp.resolve("sweep").toString(), "--cluster", cluster, "--workers", "2",
                "--bind", "127.0.0.1:" + coordinatorPort, "--worker-wait", "60"));
        for (String w : ids) args.addAll(List.of("--member", w));
        long finished = server.requestsFinished();
        CompletableFuture<CliRun> running = CompletableFuture.supplyAsync(() -> CliRun.of(env(),
                args.toArray(String[]::new)));
        // the second worker crashes once the first level has answered a few measured requests (each worker's check
        // request among those the server counts): it dies with most of its 10 still to send
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (server.requestsFinished() < finished + 2 + 4 && System.nanoTime() < deadline && !running.isDone()) {
            Thread.sleep(10);
        }
        workers.crash(1);
        String victim = ids.get(1);
        CliRun run = running.get(150, TimeUnit.SECONDS);
        assertEquals(0, run.exitCode(), run::toString);

        assertTrue(run.err().contains("llmperf4j: concurrency 2 (worker " + victim + " lost) done: "), run::err);
        // the next level ran on the worker that stayed, its whole load
        assertTrue(run.err().contains("llmperf4j: concurrency 4 (without worker " + victim + ") done: 20/20 ok"),
                run::err);
        List<String> rows = run.out().lines().toList();
        assertTrue(rows.stream().anyMatch(l -> l.trim().startsWith("2 ") && l.contains("worker " + victim + " lost")),
                run::out);
        assertTrue(rows.stream().anyMatch(l -> l.trim().startsWith("4 ") && l.contains("20/20")
                && l.contains("without worker " + victim)), run::out);
        assertTrue(run.out().contains("lost: concurrency 2: worker " + victim + " left the cluster mid-run "
                + "(concurrency 1 from "), run::out);
        assertTrue(run.out().contains(" (--max-error-rate counts them"), run::out);
        assertTrue(run.out().contains("; the levels after it ran on the other workers"), run::out);
    }

    private static Map<String, String> env() {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "EMPTY");
    }
}
