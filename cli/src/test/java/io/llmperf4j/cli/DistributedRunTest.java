package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.report.csv.RequestCsvReader;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Distributed load generation end to end: three worker JVMs ({@code llmperf4j worker}, child processes) and a
 * coordinator ({@code token-benchmark --cluster}, in this JVM), all on 127.0.0.1, against the simulated server. The
 * test that kills a worker runs last, on the three-worker cluster the others ran on, which it leaves broken. The
 * one-worker tests run their worker as a member in this JVM (the real LoadWorker, without a JVM of its own to start
 * and warm): what they assert is the coordinator's files and lines, and its signals (to a coordinator JVM).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DistributedRunTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String BASE = "meta-llama-Llama-2-7b-chat-hf_200_40";
    private static final String KILL_BASE = "meta-llama-Llama-2-7b-chat-hf_200_120";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(30))
            .interTokenDelay(Duration.ofMillis(3))
            .promptTokenCounter(Tokenizers.builtInLlama2()));
    /**
     * Worker JVMs that several tests run on, one after the other, as a user runs several benchmarks on the same
     * workers: a cluster of each size, started by the first test that needs it and stopped after the class.
     */
    private static final Map<Integer, SharedCluster> SHARED = new HashMap<>();
    private static final List<Process> sharedWorkers = new ArrayList<>();
    private static final List<Path> sharedLogs = new ArrayList<>();
    @TempDir
    static Path sharedDir;

    /**
     * A cluster's name, its workers' ids and their processes (none for members in this JVM), in the same order. Each
     * run's coordinator binds a port of its own (a port just closed may not bind again at once) and names the
     * workers, which is how it joins them.
     */
    private record SharedCluster(String name, List<String> workerIds, List<Process> processes) {
    }

    /**
     * The three worker JVMs start with the class: they boot (seconds each, cold, and their first requests run cold
     * code) while the one-worker tests run in this JVM, instead of in the first three-worker test's --worker-wait.
     */
    @BeforeAll
    static void bootTheWorkerJvms() throws IOException {
        sharedCluster(3);
    }

    /** The one-worker tests' worker, a member in this JVM, started on first use. */
    private static LocalWorkers localWorker;
    private static String localCluster;

    @AfterAll
    static void stopSharedWorkers() throws InterruptedException {
        stop(sharedWorkers);
        if (localWorker != null) localWorker.close();
    }

    /** The one-worker tests' cluster: its name and its worker's id. */
    private static synchronized SharedCluster localCluster() throws IOException {
        if (localWorker == null) {
            localCluster = "test-" + UUID.randomUUID();
            localWorker = LocalWorkers.start(localCluster, 1, "EMPTY"); // each worker's own key, as a worker JVM's
        }
        return new SharedCluster(localCluster, localWorker.ids(), List.of());
    }

    private static void stop(List<Process> processes) throws InterruptedException {
        for (Process p : processes) p.destroyForcibly();
        for (Process p : processes) p.waitFor(10, TimeUnit.SECONDS);
    }

    /** The shared cluster of {@code n} workers, started on first use. */
    private static synchronized SharedCluster sharedCluster(int n) throws IOException {
        SharedCluster cluster = SHARED.get(n);
        if (cluster == null) {
            String name = "test-" + UUID.randomUUID();
            List<Process> processes = new ArrayList<>();
            cluster = new SharedCluster(name, startWorkers(name, LoopbackPorts.next(), n,
                    Files.createDirectories(sharedDir.resolve(name)), processes, sharedLogs), processes);
            sharedWorkers.addAll(processes);
            SHARED.put(n, cluster);
        }
        return cluster;
    }

    /**
     * The shared cluster of {@code n} workers for a test that kills one of them: no later test gets it (one that asked
     * for {@code n} workers after it would start a cluster of its own).
     */
    private static synchronized SharedCluster takeSharedCluster(int n) throws IOException {
        SharedCluster cluster = sharedCluster(n);
        SHARED.remove(n);
        return cluster;
    }

    private static Map<String, String> env() {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "EMPTY");
    }

    private static List<String> workload(int requests, int concurrency, int outputTokens) {
        return List.of("--model", "meta-llama/Llama-2-7b-chat-hf", "--mean-input-tokens", "200",
                "--stddev-input-tokens", "0", "--mean-output-tokens", Integer.toString(outputTokens),
                "--stddev-output-tokens", "0", "--max-num-completed-requests", Integer.toString(requests),
                "--num-concurrent-requests", Integer.toString(concurrency), "--timeout", "120",
                "--no-client-warmup");
    }

    @Test
    @Timeout(120)
    void aCapacitySearchRunsEachLevelOnTheWorkers(@TempDir Path tmp) throws Exception {
        // three workers: a level of concurrency 2 keeps two of them busy
        SharedCluster shared = sharedCluster(3);
        String cluster = shared.name();
        int coordinatorPort = LoopbackPorts.next();
        List<String> workerIds = shared.workerIds();
        Path searched = tmp.resolve("search");
        List<String> args = new ArrayList<>(List.of("token-benchmark"));
        args.addAll(workload(100, 6, 20));
        args.addAll(List.of("--slo", "e2e_p50<=10s", "--search", "concurrency", "--search-max", "2",
                "--search-level-max", "100", "--search-min-samples", "4", "--search-no-repeat", "--sleep-between", "0",
                "--results-dir", searched.toString()));
        args.addAll(coordinatorFlags(cluster, coordinatorPort, workerIds));
        CliRun search = CliRun.of(env(), args.toArray(String[]::new));
        assertEquals(0, search.exitCode(), () -> search + logs());
        String base = "meta-llama-Llama-2-7b-chat-hf_200_20";
        JsonNode doc = JSON.readTree(searched.resolve(base + "_search.json").toFile());
        assertEquals("above_range", doc.get("outcome").asText(), search::toString);
        assertEquals(2, doc.get("levels").size(), search::toString);
        JsonNode level2 = JSON.readTree(searched.resolve("level_02_concurrency_2").resolve(base
                + "_llmperf4j_summary.json").toFile());
        assertEquals(2, level2.at("/distributed/workers").size(), level2::toString);
        // the verdict resolves on the records as they stream in, so its stop reaches the workers while they send:
        // the QA's levels ran their whole shares (48 records where the table said 37); 100 a level leaves a slow
        // machine room for the stop to arrive before the shares end
        assertEquals("resolved", doc.at("/levels/1/stop").asText(), doc::toString);
        int recorded = level2.at("/run/requests_recorded").asInt();
        assertTrue(recorded >= 4 && recorded < 100, () -> recorded + " recorded: " + level2);
    }

    @Test
    @Timeout(180)
    void threeWorkersMergeIntoOneRunThatMatchesASingleMachine(@TempDir Path tmp) throws Exception {
        SharedCluster shared = sharedCluster(3);
        String cluster = shared.name();
        int coordinatorPort = LoopbackPorts.next();
        List<String> workerIds = shared.workerIds();

        Path dist = tmp.resolve("dist");
        List<String> args = new ArrayList<>(List.of("token-benchmark"));
        args.addAll(workload(90, 6, 40));
        args.addAll(List.of("--results-dir", dist.toString()));
        args.addAll(coordinatorFlags(cluster, coordinatorPort, workerIds));
        CliRun run = CliRun.of(env(), args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), () -> run + logs());

        // exactly the requested requests, each prompt once, each worker some, all succeeded
        List<RequestRecord> records = RequestCsvReader.read(dist.resolve(BASE + "_requests.csv"));
        assertEquals(90, records.size(), run::toString);
        assertEquals(90, records.stream().map(RequestRecord::promptIndex).collect(Collectors.toSet()).size());
        assertTrue(records.stream().allMatch(RequestRecord::succeeded), run::toString);
        Map<String, Long> perWorker = records.stream()
                .collect(Collectors.groupingBy(RequestRecord::workerId, Collectors.counting()));
        assertEquals(new TreeSet<>(workerIds), new TreeSet<>(perWorker.keySet()));
        assertEquals(List.of(30L, 30L, 30L), new ArrayList<>(perWorker.values()));
        assertTrue(Files.readString(dist.resolve(journalName())).contains("\"worker_id\":\"127.0.0.1:"));

        JsonNode summary = JSON.readTree(dist.resolve(BASE + "_llmperf4j_summary.json").toFile());
        assertEquals(90, summary.at("/run/requests_recorded").asInt());
        assertTrue(summary.at("/client_overhead/event_loop_lag_p99_ms").isNumber(), "the workers' clients: " + summary);
        assertEquals(3, run.err().split("its client: event-loop lag p99", -1).length - 1, run::toString);
        JsonNode distributed = summary.get("distributed");
        assertEquals(cluster, distributed.get("cluster_name").asText());
        assertEquals(3, distributed.get("workers").size());
        for (JsonNode w : distributed.get("workers")) {
            assertTrue(w.get("clock_offset_ms").isNumber(), w::toString);
            assertTrue(Math.abs(w.get("clock_offset_ms").asDouble()) < 50, "one machine, one clock: " + w);
            assertEquals(30, w.get("requests_succeeded").asInt(), w::toString);
            assertTrue(w.get("left").isNull());
            assertEquals(0, w.path("requests_not_sent").asInt(-1), w::toString);
        }

        // the same workload from one machine: the same files, the same figures within noise
        Path single = tmp.resolve("single");
        List<String> singleArgs = new ArrayList<>(List.of("token-benchmark"));
        singleArgs.addAll(workload(90, 6, 40));
        singleArgs.addAll(List.of("--results-dir", single.toString()));
        CliRun one = CliRun.of(env(), singleArgs.toArray(String[]::new));
        assertEquals(0, one.exitCode(), one::toString);
        assertEquals(fileNames(single), fileNames(dist));
        assertEquals(keys(single.resolve(BASE + "_summary.json")), keys(dist.resolve(BASE + "_summary.json")));
        assertEquals(keys(firstResponse(single)), keys(firstResponse(dist)), "llmperf's records: key for key");
        assertEquals(csvHeader(single).size() + 1, csvHeader(dist).size());

        JsonNode singleSummary = JSON.readTree(single.resolve(BASE + "_llmperf4j_summary.json").toFile());
        assertTrue(singleSummary.get("distributed").isNull());
        // medians and throughput: a p90 of 90 requests is its 9 slowest, which the test machine's other work (worker
        // JVMs without client warm-up, the parallel test fork) moves by more than the factor of 2 allowed here
        for (String metric : List.of("/metrics/ttft_ms/p50", "/metrics/e2e_latency_ms/p50",
                "/throughput/output_tokens_per_s", "/throughput/requests_per_s")) {
            double a = singleSummary.at(metric).asDouble();
            double b = summary.at(metric).asDouble();
            assertTrue(b > a * 0.5 && b < a * 2.0, metric + ": single machine " + a + ", three workers " + b);
        }

        // an open loop with warmup on the same workers: the rate and the warmup split, one machine's files
        Path open = tmp.resolve("open");
        List<String> openArgs = new ArrayList<>(List.of("token-benchmark"));
        openArgs.addAll(workload(12, 6, 20));
        openArgs.addAll(List.of("--request-rate", "30", "--arrival", "constant", "--warmup-requests", "3",
                "--results-dir", open.toString()));
        openArgs.addAll(coordinatorFlags(cluster, LoopbackPorts.next(), workerIds));
        CliRun opened = CliRun.of(env(), openArgs.toArray(String[]::new));
        assertEquals(0, opened.exitCode(), () -> opened + logs());
        String openBase = "meta-llama-Llama-2-7b-chat-hf_200_20";
        JsonNode openLoop = JSON.readTree(open.resolve(openBase + "_open_loop.json").toFile());
        assertEquals(12, openLoop.get("requests_sent").asInt(), openLoop::toString);
        assertEquals(12, openLoop.get("requests_succeeded").asInt(), openLoop::toString);
        assertEquals(30.0, openLoop.get("offered_requests_per_s").asDouble());
        assertEquals(3, JSON.readTree(open.resolve(openBase + "_llmperf4j_summary.json").toFile())
                .at("/distributed/workers").size());
        assertTrue(opened.out().contains("req/s"), opened::toString);
        assertTrue(opened.out().contains("(3 warmup requests ran)"), opened::toString);

        // a sweep on the same workers: level by level, each on as many workers as it keeps busy
        Path sweep = tmp.resolve("sweep");
        List<String> sweepArgs = new ArrayList<>(List.of("token-benchmark"));
        sweepArgs.addAll(workload(12, 6, 20));
        sweepArgs.addAll(List.of("--concurrency-sweep", "2,6", "--sleep-between", "0", "--results-dir",
                sweep.toString()));
        sweepArgs.addAll(coordinatorFlags(cluster, LoopbackPorts.next(), workerIds));
        CliRun swept = CliRun.of(env(), sweepArgs.toArray(String[]::new));
        assertEquals(0, swept.exitCode(), () -> swept + logs());
        String sweepBase = "meta-llama-Llama-2-7b-chat-hf_200_20";
        List<String> rows = Files.readAllLines(sweep.resolve(sweepBase + "_sweep.csv"));
        assertEquals(3, rows.size(), rows::toString);
        assertTrue(rows.get(1).startsWith("2,concurrency,12,12,"), rows::toString);
        assertTrue(rows.get(2).startsWith("6,concurrency,12,12,"), rows::toString);
        for (String level : List.of("concurrency_2", "concurrency_6")) {
            JsonNode levelSummary = JSON.readTree(sweep.resolve(level)
                    .resolve(sweepBase + "_llmperf4j_summary.json").toFile());
            assertEquals(level.endsWith("2") ? 2 : 3, levelSummary.at("/distributed/workers").size(), level);
            assertEquals(12, RequestCsvReader.read(sweep.resolve(level).resolve(sweepBase + "_requests.csv")).size());
        }

        // JMH-style iterations on the same workers: each fork a distributed run, the JMH files of one machine
        Path iterations = tmp.resolve("iterations");
        List<String> iterationArgs = new ArrayList<>(List.of("token-benchmark"));
        iterationArgs.addAll(workload(90, 6, 40));
        iterationArgs.addAll(List.of("--iterations", "2", "--warmup-iterations", "1", "--iteration-time", "0.6",
                "--forks", "2", "--results-dir", iterations.toString()));
        iterationArgs.addAll(coordinatorFlags(cluster, LoopbackPorts.next(), workerIds));
        CliRun iterated = CliRun.of(env(), iterationArgs.toArray(String[]::new));
        assertEquals(0, iterated.exitCode(), () -> iterated + logs());
        assertTrue(iterated.out().contains("# Fork: 2 of 2\n"), iterated::toString);
        assertTrue(iterated.err().contains("closed loop, concurrency 2, for 1.8 s"), iterated::toString);
        JsonNode jmh = JSON.readTree(iterations.resolve(BASE + "_jmh.json").toFile()).get(0);
        assertEquals("6", jmh.at("/params/concurrency").asText());
        JsonNode rawData = jmh.at("/primaryMetric/rawData");
        assertEquals(2, rawData.size(), "one row per fork");
        // the same closed loop as the single machine's run above: the same tok/s within noise
        double singleTokensPerSecond = singleSummary.at("/throughput/output_tokens_per_s").asDouble();
        for (JsonNode fork : rawData) {
            assertEquals(2, fork.size(), "one score per measurement iteration");
            for (JsonNode score : fork) {
                assertTrue(score.asDouble() > singleTokensPerSecond * 0.5
                        && score.asDouble() < singleTokensPerSecond * 2.0, score + " tok/s in an iteration, "
                        + singleTokensPerSecond + " on one machine");
            }
        }
        List<String> iterationRows = Files.readAllLines(iterations.resolve(BASE + "_iterations.csv"));
        assertEquals(1 + 2 * 3, iterationRows.size(), "2 forks x (1 warmup + 2 measurement): " + iterationRows);

        // two models compared on the same workers: a folder per model and one table, as on one machine
        Path models = tmp.resolve("models");
        List<String> modelArgs = new ArrayList<>(List.of("token-benchmark"));
        List<String> sameWorkload = workload(12, 3, 20);
        modelArgs.addAll(sameWorkload.subList(2, sameWorkload.size())); // all but its --model
        modelArgs.addAll(List.of("--model", "m1,m2", "--sleep-between", "0", "--results-dir", models.toString()));
        modelArgs.addAll(coordinatorFlags(cluster, LoopbackPorts.next(), workerIds));
        CliRun compared = CliRun.of(env(), modelArgs.toArray(String[]::new));
        assertEquals(0, compared.exitCode(), () -> compared + logs());
        assertTrue(compared.out().contains("Comparison: closed loop, concurrency 3, 12 requests; the same workload"),
                compared::toString);
        for (String model : List.of("m1", "m2")) {
            List<RequestRecord> modelRecords = RequestCsvReader.read(models.resolve(model)
                    .resolve(model + "_200_20_requests.csv"));
            assertEquals(12, modelRecords.size(), model);
            assertEquals(3, modelRecords.stream().map(RequestRecord::workerId).distinct().count(), model);
            JsonNode modelSummary = JSON.readTree(models.resolve(model).resolve(model + "_200_20_summary.json")
                    .toFile());
            assertEquals(model, modelSummary.get("model").asText(), "the workers sent this model");
        }
        assertEquals(3, Files.readAllLines(models.resolve("comparison.csv")).size(), "header and 2 models");
    }

    @Test
    @Timeout(200)
    @Order(Integer.MAX_VALUE) // after every test that runs on the three workers: it kills one of them
    void aWorkerKilledMidRunLeavesItsRequestInFlightLostItsUnsentOnesNotSent(@TempDir Path tmp) throws Exception {
        SharedCluster shared = takeSharedCluster(3);
        String cluster = shared.name();
        int coordinatorPort = LoopbackPorts.next();
        List<String> workerIds = shared.workerIds();

        Path dist = tmp.resolve("dist");
        List<String> args = new ArrayList<>(List.of("token-benchmark"));
        args.addAll(workload(30, 3, 120)); // each worker: one slot, 10 requests of about 0.4 s
        args.addAll(List.of("--results-dir", dist.toString()));
        args.addAll(coordinatorFlags(cluster, coordinatorPort, workerIds));
        long finished = server.requestsFinished();
        CompletableFuture<CliRun> coordinator = CompletableFuture.supplyAsync(() ->
                CliRun.of(env(), args.toArray(String[]::new)));

        // kill the second worker once its share has run for a while: the three slots have answered 6 requests
        // between them (about 2 each, of 10) beyond each worker's pre-run check, which the server counts too,
        // whatever the machine's speed (a loaded machine took over a minute to start the run: the kill then came
        // during the pre-run check, and the run rightly failed)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (server.requestsFinished() < finished + workerIds.size() + 6 && System.nanoTime() < deadline
                && !coordinator.isDone()) {
            Thread.sleep(20);
        }
        shared.processes().get(1).destroyForcibly();
        String victim = workerIds.get(1);

        CliRun run = coordinator.get(100, TimeUnit.SECONDS);
        assertEquals(0, run.exitCode(), () -> run + logs());
        List<RequestRecord> records = RequestCsvReader.read(dist.resolve(KILL_BASE + "_requests.csv"));
        JsonNode summary = JSON.readTree(dist.resolve(KILL_BASE + "_llmperf4j_summary.json").toFile());
        // a record for every request sent, none for those the dead worker never sent (they were not sent)
        assertEquals(records.size(), summary.at("/run/requests_sent").asInt(), run::toString);
        assertEquals(records.size(), records.stream().map(RequestRecord::promptIndex).collect(Collectors.toSet())
                .size());
        List<RequestRecord> victims = records.stream().filter(r -> victim.equals(r.workerId())).toList();
        assertTrue(victims.size() < 10, "it died before sending its 10: " + run);
        assertEquals(30 - (10 - victims.size()), records.size(), run::toString);
        List<RequestRecord> lost = victims.stream().filter(r -> !r.succeeded()).toList();
        // lost: what it had sent without the record reaching the coordinator (in flight, or answered but not yet
        // delivered: one slot re-sends as an answer ends, before its record goes out)
        assertTrue(victims.size() > lost.size(), "the requests it finished before it died are kept: " + run);
        for (RequestRecord r : lost) {
            assertEquals(FailureKind.LOST, r.failure().kind(), r::toString);
            assertTrue(r.failure().message().contains(victim), r.failure().message());
        }
        assertTrue(records.stream().filter(r -> !victim.equals(r.workerId())).allMatch(RequestRecord::succeeded),
                run::toString);

        assertEquals(lost.size(), summary.at("/errors/by_kind/LOST").asInt());
        JsonNode victimJson = null;
        for (JsonNode w : summary.at("/distributed/workers")) if (w.get("id").asText().equals(victim)) victimJson = w;
        assertNotNull(victimJson);
        assertEquals(lost.size(), victimJson.get("requests_lost").asInt());
        assertEquals(10 - victims.size(), victimJson.path("requests_not_sent").asInt(-1), victimJson::toString);
        assertTrue(victimJson.get("left").asText().contains(victim), victimJson::toString);
        assertTrue(victimJson.get("left").asText().contains(", " + (10 - victims.size()) + " it never said it sent "
                + "are not sent"), victimJson::toString);
        assertTrue(Files.exists(dist.resolve(KILL_BASE + "_summary.json")));
        assertTrue(Files.exists(dist.resolve(KILL_BASE + "_individual_responses.json")));

        // stdout says the concurrency fell and how many were never sent (the QA read "concurrency 8, 160 requests")
        int notSent = 10 - victims.size();
        assertTrue(run.out().contains(", concurrency 3 (2 from "), run::out);
        assertTrue(run.out().contains(" s: worker " + victim + " lost), " + records.size() + " requests ("), run::out);
        assertTrue(run.out().contains("Not sent: " + notSent + " of 30 requests: load worker " + victim + " left the "
                + "cluster mid-run before sending them (--max-error-rate counts them"), run::out);
        // nothing stopped the run: the progress line names the lost worker
        assertFalse(run.err().contains("not sent: the run was stopped"), run::err);
        assertTrue(run.err().contains(" not sent: a load worker left the cluster mid-run)"), run::err);
        // the workers that stayed said nothing of Hazelcast's (merges, "suspected dead", member-list dumps): the
        // coordinator's lines tell the loss; --debug shows them (HazelcastLogGateTest)
        for (int i : List.of(0, 2)) {
            String log = Files.readString(sharedDir.resolve(cluster).resolve("worker-" + i + ".log"));
            assertFalse(log.contains("com.hazelcast"), log);
            assertFalse(log.contains("MembersView"), log);
        }
    }

    /**
     * Ctrl-C (SIGINT) to a coordinator process during a distributed sweep, staged as on one machine (one SIGTERM
     * stops everything at once: SweepInterruptTest).
     */
    @Test
    @Timeout(120)
    void signalsToTheCoordinatorAbortASweepLevelThenStopTheSweep(@TempDir Path tmp) throws Exception {
        // a shell starts background jobs with SIGINT ignored, and children inherit that: then no Ctrl-C can arrive
        org.junit.jupiter.api.Assumptions.assumeFalse(Signals.sigintIgnoredHere(),
                "SIGINT is ignored in this process tree");
        SharedCluster shared = localCluster();
        String cluster = shared.name();
        int coordinatorPort = LoopbackPorts.next();
        List<String> workerIds = shared.workerIds();
        Path dir = tmp.resolve("sweep");
        List<String> command = ChildJvm.command("token-benchmark");
        command.addAll(workload(12, 1, 120)); // a request takes about 0.4 s: a level lasts seconds
        // no pause between levels: the second level's stop comes during its sending, which the test waits for
        command.addAll(List.of("--concurrency-sweep", "1,2,4", "--sleep-between", "0", "--results-dir",
                dir.toString()));
        command.addAll(coordinatorFlags(cluster, coordinatorPort, workerIds));
        Path stderr = tmp.resolve("coordinator.txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile());
        builder.environment().putAll(env());
        long finished = server.requestsFinished();
        Process coordinator = builder.start();
        try {
            awaitText(stderr, "closed loop, concurrency 1, 12 requests", coordinator);
            // into the level's sending, one request answered (beyond each worker's pre-run check, which the server
            // counts too)
            awaitFinished(finished + workerIds.size() + 1, coordinator);
            Signals.send(coordinator, "INT");
            awaitText(stderr, "closed loop, concurrency 2, 12 requests", coordinator);
            awaitFinished(server.requestsFinished() + 1, coordinator);
            Signals.send(coordinator, "INT"); // the level's first: aborts it
            awaitText(stderr, "aborting this level", 2, coordinator);
            Signals.send(coordinator, "INT"); // the same level's second: stops the sweep
            assertTrue(coordinator.waitFor(60, TimeUnit.SECONDS), "the sweep did not stop");
            String err = Files.readString(stderr);
            assertEquals(ExitCodes.INTERRUPTED, coordinator.exitValue(), err + logs());
            assertTrue(err.contains("received: stopping, cancelling requests in flight and writing"), err);

            JsonNode sweep = JSON.readTree(dir.resolve("meta-llama-Llama-2-7b-chat-hf_200_120_sweep.json").toFile());
            assertTrue(sweep.get("stopped").asBoolean(), sweep::toString);
            assertEquals(2, sweep.get("levels").size(), sweep::toString);
            for (JsonNode level : sweep.get("levels")) {
                assertTrue(level.get("aborted").asBoolean(), level::toString);
                assertTrue(level.get("total").asInt() < 12, level::toString);
                assertTrue(level.get("successes").asInt() >= 1, level::toString);
            }
            assertFalse(Files.exists(dir.resolve("concurrency_4")), "no level starts after the stop");
        } finally {
            coordinator.destroyForcibly();
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * The same workload on this machine and on a one-worker cluster: one run path, so the same files (with
     * --save-events, the events CSV too) and the same CSV columns (the cluster's requests CSV adds the worker's id).
     * Then --llm-api anthropic --no-stream on the worker: one JSON response per request, so TTFT equals E2E (the
     * worker once built a streaming Anthropic adapter whatever --no-stream said).
     */
    @Test
    @Timeout(180)
    void oneWorkerWritesTheFilesAndColumnsOfThisMachine(@TempDir Path tmp) throws Exception {
        SharedCluster shared = localCluster();
        String cluster = shared.name();
        int coordinatorPort = LoopbackPorts.next();
        List<String> workerIds = shared.workerIds();

        Path dist = tmp.resolve("dist");
        List<String> args = new ArrayList<>(List.of("token-benchmark"));
        args.addAll(workload(8, 2, 40));
        args.addAll(List.of("--save-events", "--results-dir", dist.toString()));
        args.addAll(coordinatorFlags(cluster, coordinatorPort, workerIds));
        CliRun run = CliRun.of(env(), args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), () -> run + logs());

        Path local = tmp.resolve("local");
        List<String> localArgs = new ArrayList<>(List.of("token-benchmark"));
        localArgs.addAll(workload(8, 2, 40));
        localArgs.addAll(List.of("--save-events", "--results-dir", local.toString()));
        CliRun one = CliRun.of(env(), localArgs.toArray(String[]::new));
        assertEquals(0, one.exitCode(), one::toString);

        Set<String> names = fileNames(local);
        assertTrue(names.contains(BASE + "_events.csv"), names::toString);
        assertEquals(names, fileNames(dist));
        for (String name : names) {
            if (!name.endsWith(".csv")) continue;
            List<String> columns = new ArrayList<>(header(dist.resolve(name)));
            columns.remove(io.llmperf4j.report.csv.RequestCsvWriter.WORKER_COLUMN);
            assertEquals(header(local.resolve(name)), columns, name);
        }
        assertEquals(Files.readAllLines(local.resolve(BASE + "_events.csv")).size(),
                Files.readAllLines(dist.resolve(BASE + "_events.csv")).size(), "one row per content event");
        // the server's counters over the client's window: a cluster's as exactly as this machine's
        assertServerCountedTheRun(local, 8, one);
        assertServerCountedTheRun(dist, 8, run);
        // progress counts the records as the worker streams them, on a clock from the shared start instant (the
        // coordinator's wait for the workers' set-up is no part of the run): it once heard them all at once after
        // the run, on the level's clock, and printed "1/8 requests done, ..., 4.1 s, 0.25 req/s"
        List<String> progress = run.err().lines().filter(l -> l.contains(" requests done, ")).toList();
        assertFalse(progress.isEmpty(), run::toString);
        String last = progress.get(progress.size() - 1);
        assertTrue(last.startsWith("llmperf4j: 8/8 requests done, 0 failed, "), run::toString);
        double elapsedS = Double.parseDouble(last.replaceAll(".* failed, ([0-9.]+) s, .*", "$1"));
        double runS = 8 / JSON.readTree(dist.resolve(BASE + "_llmperf4j_summary.json").toFile())
                .at("/throughput/requests_per_s").asDouble();
        assertTrue(elapsedS < runS + 1.0, "progress's " + elapsedS + " s against the run's " + runS + " s: " + run);

        Path anthropic = tmp.resolve("anthropic");
        List<String> anthropicArgs = new ArrayList<>(List.of("token-benchmark", "--llm-api", "anthropic",
                "--no-stream"));
        anthropicArgs.addAll(workload(4, 2, 40));
        anthropicArgs.addAll(List.of("--results-dir", anthropic.toString()));
        anthropicArgs.addAll(coordinatorFlags(cluster, LoopbackPorts.next(), workerIds));
        CliRun messages = CliRun.of(Map.of("ANTHROPIC_API_BASE", server.baseUrl(), "ANTHROPIC_API_KEY", "k"),
                anthropicArgs.toArray(String[]::new));
        assertEquals(0, messages.exitCode(), () -> messages + logs());
        List<RequestRecord> records = RequestCsvReader.read(anthropic.resolve(BASE + "_requests.csv"));
        assertEquals(4, records.size());
        for (RequestRecord r : records) {
            assertTrue(r.succeeded(), r::toString);
            assertEquals(r.e2eNanos(), r.ttftNanos(), "not streamed: TTFT is the whole response " + r);
        }
    }

    /**
     * The summary's {@code server} section (the simulator's vLLM {@code /metrics}, scraped by default) counts exactly
     * the run's requests and the client's output tokens (every one the server's usage): no more, no less.
     */
    private static void assertServerCountedTheRun(Path dir, int requests, CliRun run) throws IOException {
        JsonNode summary = JSON.readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile());
        JsonNode serverSide = summary.get("server");
        assertNotNull(serverSide, run::toString);
        assertEquals(requests, summary.at("/token_counting/output_token_source_counts/server_usage").asInt(),
                summary::toString);
        long clientTokens = summary.at("/throughput/total_output_tokens").asLong();
        assertEquals(requests * 40L, clientTokens, summary::toString);
        assertEquals(clientTokens, serverSide.get("generation_tokens").asLong(), serverSide + "\n" + run);
        assertEquals(requests, serverSide.get("requests_finished").asInt(), serverSide + "\n" + run);
        assertEquals(summary.at("/throughput/output_tokens_per_s").asDouble(),
                serverSide.get("generation_tokens_per_s").asDouble(), 1e-6, "the same tokens over the same window");
        assertTrue(run.out().contains("Server (vllm /metrics): " + clientTokens + " generation tokens"),
                run::toString);
    }

    private static List<String> header(Path csv) throws IOException {
        return List.of(Files.readAllLines(csv, StandardCharsets.UTF_8).get(0).split(","));
    }

    /** Waits until the server has answered {@code finished} requests to the end (a worker's JVM starts cold). */
    private void awaitFinished(long finished, Process coordinator) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.requestsFinished() < finished) {
            if (System.nanoTime() > deadline || !coordinator.isAlive()) {
                throw new AssertionError("the server answered " + server.requestsFinished() + " of " + finished
                        + " requests; coordinator alive: " + coordinator.isAlive() + logs());
            }
            Thread.sleep(20);
        }
    }

    private void awaitText(Path file, String text, Process process) throws Exception {
        awaitText(file, text, 1, process);
    }

    /** Waits until {@code file} holds {@code text} {@code times} times. */
    private void awaitText(Path file, String text, int times, Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && process.isAlive()) {
            String s = Files.exists(file) ? Files.readString(file) : "";
            int n = 0;
            for (int i = s.indexOf(text); i >= 0; i = s.indexOf(text, i + 1)) n++;
            if (n >= times) return;
            Thread.sleep(20);
        }
        throw new AssertionError("'" + text + "' not seen " + times + " times; alive: " + process.isAlive() + "\n"
                + (Files.exists(file) ? Files.readString(file) : "") + logs());
    }

    /** token-benchmark's flags that make it the coordinator of {@code workerIds}, bound to 127.0.0.1:{@code port}. */
    private static List<String> coordinatorFlags(String cluster, int port, List<String> workerIds) {
        List<String> flags = new ArrayList<>(List.of("--cluster", cluster, "--workers",
                Integer.toString(workerIds.size()), "--bind", "127.0.0.1:" + port, "--worker-wait", "60"));
        for (String w : workerIds) flags.addAll(List.of("--member", w));
        return flags;
    }

    /** Starts {@code n} worker JVMs on 127.0.0.1 into {@code processes}; returns their ids (cluster addresses). */
    private static List<String> startWorkers(String cluster, int coordinatorPort, int n, Path tmp,
            List<Process> processes, List<Path> logs) throws IOException {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) ports.add(LoopbackPorts.next());
        List<String> ids = new ArrayList<>();
        for (int port : ports) ids.add("127.0.0.1:" + port);
        for (int i = 0; i < n; i++) {
            List<String> command = ChildJvm.command(List.of("-Xmx256m"), "worker", "--cluster", cluster, "--bind",
                    ids.get(i), "--member", "127.0.0.1:" + coordinatorPort, "--no-client-warmup");
            for (String other : ids) command.addAll(List.of("--member", other));
            Path log = tmp.resolve("worker-" + i + ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().remove("OPENAI_API_BASE");
            // each worker's own key, which its pre-run check requires set (the server checks none)
            builder.environment().put("OPENAI_API_KEY", "EMPTY");
            builder.environment().put("ANTHROPIC_API_KEY", "EMPTY");
            processes.add(builder.start());
            logs.add(log);
        }
        return ids;
    }

    private String logs() {
        List<Path> all;
        synchronized (DistributedRunTest.class) {
            all = new ArrayList<>(sharedLogs);
        }
        StringBuilder b = new StringBuilder();
        for (Path log : all) {
            try {
                b.append("\n--- ").append(log.getFileName()).append('\n').append(Files.readString(log));
            } catch (IOException e) {
                b.append("\n--- ").append(log.getFileName()).append(": ").append(e);
            }
        }
        return b.toString();
    }

    private static String journalName() {
        return io.llmperf4j.report.jsonl.RequestJournal.FILE_NAME;
    }

    private static List<String> csvHeader(Path dir) throws IOException {
        String first = Files.readAllLines(dir.resolve(BASE + "_requests.csv"), StandardCharsets.UTF_8).get(0);
        return List.of(first.split(","));
    }

    private static Set<String> fileNames(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static JsonNode firstResponse(Path dir) throws IOException {
        return JSON.readTree(dir.resolve(BASE + "_individual_responses.json").toFile()).get(0);
    }

    private static Set<String> keys(Path file) throws IOException {
        return keys(JSON.readTree(file.toFile()));
    }

    private static Set<String> keys(JsonNode node) {
        Set<String> keys = new HashSet<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) keys.add(it.next());
        return keys;
    }
}
