package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a load worker killed mid-run leaves behind, beyond its records (the QA's SIGKILL of one of two workers of an
 * open loop with a warmup): the run's console counted only the warmup requests of the worker that reported ("10
 * warmup requests ran" when 20 did), and {@code compare} said nothing of the 29 % of the offered load never sent,
 * putting the throughput drop on the few LOST requests, with a gate passing on the run. Two workers (members in this
 * JVM) and a coordinator ({@code token-benchmark --cluster}), on 127.0.0.1, against the simulated server: a whole run,
 * then one whose second-listed worker crashes (its member terminated, as a crash leaves it) once it has sent measured
 * requests, then compare of the two. What is asserted is the coordinator's files and compare's reading of them; a
 * worker JVM killed with SIGKILL is DistributedRunTest's.
 */
class LostWorkerLeftoversTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String BASE = "meta-llama-Llama-2-7b-chat-hf_200_40";

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
    void theWarmupIsCountedPerWorkerAndCompareSaysTheLoadNeverSent(@TempDir Path tmp) throws Exception {
        String cluster = "test-" + UUID.randomUUID();
        workers = LocalWorkers.start(cluster, 2, "EMPTY");
        List<String> ids = workers.ids();

        // 40 arrivals at 20 req/s over the two workers, the first 4 a warmup (2 each); each request about 0.15 s
        Path whole = tmp.resolve("whole");
        CliRun first = CliRun.of(env(), args(whole, cluster, LoopbackPorts.next(), ids));
        assertEquals(0, first.exitCode(), first::toString);
        assertTrue(first.out().contains("(4 warmup requests ran)."), first::toString);

        Path lost = tmp.resolve("lost");
        String[] lostArgs = args(lost, cluster, LoopbackPorts.next(), ids);
        long finished = server.requestsFinished();
        CompletableFuture<CliRun> running = CompletableFuture.supplyAsync(() -> CliRun.of(env(), lostArgs));
        // the second worker crashes once the server has answered the warmup and about 10 measured requests (its
        // check request, if any, among them): it has sent measured requests, and has most of its 20 still to send
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.requestsFinished() < finished + 16 && System.nanoTime() < deadline && !running.isDone()) {
            Thread.sleep(10);
        }
        workers.crash(1);
        String victim = ids.get(1);
        CliRun run = running.get(120, TimeUnit.SECONDS);
        assertEquals(0, run.exitCode(), run::toString);

        JsonNode summary = JSON.readTree(lost.resolve(BASE + "_llmperf4j_summary.json").toFile());
        List<String> parts = new ArrayList<>();
        int notSent = -1;
        for (JsonNode w : summary.at("/distributed/workers")) {
            String id = w.get("id").asText();
            if (!id.equals(victim)) {
                parts.add("2 on " + id);
                continue;
            }
            assertTrue(w.get("requests_recorded").asInt() > 0, "the worker was killed after a measured send: " + w);
            notSent = w.get("requests_not_sent").asInt();
            assertTrue(notSent > 0, "it was killed with requests still to send: " + w);
            parts.add("2 on " + id + ", which left the cluster mid-run after them (its warmup records left with it)");
        }
        // before: "(2 warmup requests ran)", the other worker's alone
        assertTrue(run.out().contains("(4 warmup requests ran: " + String.join("; ", parts) + ")."), run::toString);

        String share = String.format(java.util.Locale.ROOT, "%.1f %%", 100.0 * notSent / 40);
        CliRun gated = CliRun.of(Map.of(), "compare", whole.toString(), lost.toString(), "--fail-if",
                "error_rate>0.9", "--fail-if", "request_throughput<-99%");
        // before: exit 0, no word of the unsent load, and the throughput put on the LOST requests
        assertEquals(3, gated.exitCode(), gated::toString);
        assertTrue(gated.err().contains("compare: the candidate (" + lost + ") did not send all its planned load: "
                + notSent + " of its 40 planned requests (" + share + ") were never sent: load worker " + victim
                + " left the cluster mid-run"), gated::toString);
        assertTrue(gated.out().contains("candidate: lost ("), gated::toString);
        assertTrue(gated.out().contains("; " + notSent + " of its 40 planned requests never sent (a load worker left "
                + "mid-run))"), gated::toString);
        assertTrue(gated.out().contains("\nthroughput: load never sent: the candidate's " + notSent + " of its 40 "
                + "planned requests (" + share + ") were never sent"), gated::toString);
        assertFalse(gated.out().contains("the error rate and the throughput count them all"), gated::toString);
        assertFalse(gated.out().contains("failed requests deliver nothing"), gated::toString);
        assertTrue(gated.out().contains("GATE FAILED: 1 side did not run to its end"), gated::toString);

        CliRun allowed = CliRun.of(Map.of(), "compare", whole.toString(), lost.toString(), "--fail-if",
                "error_rate>0.9", "--allow-incomplete");
        assertEquals(0, allowed.exitCode(), allowed::toString);
        assertTrue(allowed.err().contains("(judged by the rules anyway: --allow-incomplete)"), allowed::toString);
    }

    private static Map<String, String> env() {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "EMPTY");
    }

    private static String[] args(Path dir, String cluster, int port, List<String> workerIds) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "meta-llama/Llama-2-7b-chat-hf",
                "--mean-input-tokens", "200", "--stddev-input-tokens", "0", "--mean-output-tokens", "40",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "40", "--request-rate", "20",
                "--arrival", "constant", "--warmup-requests", "4", "--timeout", "120", "--no-client-warmup",
                "--results-dir", dir.toString(), "--cluster", cluster, "--workers", Integer.toString(workerIds.size()),
                "--bind", "127.0.0.1:" + port, "--worker-wait", "60"));
        for (String w : workerIds) args.addAll(List.of("--member", w));
        return args.toArray(String[]::new);
    }
}
