package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker lost mid-run, told as it happened: two workers on 127.0.0.1 against a server in this test that answers
 * each client's first {@value #ANSWERED} requests and holds the rest, so the second-listed worker is killed (its
 * member terminated, as a crash leaves it) with exactly its 2 slots' requests in flight and 5 of its 10 never sent,
 * while the first-listed worker still runs (its held requests are let go only once the coordinator has told the
 * loss). A second run holds each client's first request too, a warmup, so the killed worker dies with a warmup
 * request in flight. Each test has a cluster of its own.
 */
class ClusterLostWorkerTest {
    private static final int ANSWERED = 3;
    private HttpServer server;
    private Coordinator coordinator;
    private final List<HazelcastInstance> workers = new ArrayList<>();
    private List<Member> members;
    private CompletableFuture<Void> crashed;
    private final List<String> logLines = new CopyOnWriteArrayList<>();
    /** X-Request-Id of every request the server saw, in arrival order. */
    private final List<String> arrivals = new CopyOnWriteArrayList<>();
    /** X-Request-Id of the requests held, by client (the id's prefix). */
    private final Map<String, List<String>> held = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> release = new ConcurrentHashMap<>();
    /** Which of a client's requests (its n-th, from 1) the server holds: by default those after its first few. */
    private volatile IntPredicate holds = n -> n > ANSWERED;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            String id = exchange.getRequestHeaders().getFirst("X-Request-Id");
            arrivals.add(id);
            String client = prefix(id);
            int n = seen.computeIfAbsent(client, c -> new AtomicInteger()).incrementAndGet();
            if (holds.test(n)) {
                held.computeIfAbsent(client, c -> new CopyOnWriteArrayList<>()).add(id);
                try {
                    release.computeIfAbsent(client, c -> new CountDownLatch(1)).await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = ("data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},"
                    + "\"finish_reason\":null}]}\n\ndata: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},"
                    + "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        });
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread t = new Thread(task, "lost-worker-test-server");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        String name = "test-" + UUID.randomUUID();
        // every member names the coordinator alone, as `llmperf4j worker --member <coordinator>` does: a member that
        // named the killed worker's address too would keep probing it for a split-brain merge (a 5 s connect loop
        // every few seconds), and its shutdown waits up to 3 s for a probe under way
        List<HostPort> coordinatorOnly = List.of(new HostPort("127.0.0.1", LoopbackPorts.next()));
        coordinator = Coordinator.start(new ClusterSettings(name, coordinatorOnly, coordinatorOnly.get(0)),
                logLines::add);
        for (int i = 0; i < 2; i++) {
            HostPort bind = new HostPort("127.0.0.1", LoopbackPorts.next());
            workers.add(ClusterNode.start(new ClusterSettings(name, coordinatorOnly, bind), ClusterNode.WORKER,
                    Map.of(LoadWorker.CONTEXT_KEY, new LoadWorker(api -> "", line -> { }))));
        }
        members = coordinator.awaitWorkers(2, Duration.ofSeconds(60));
    }

    /**
     * Terminates the member as a crash leaves it, on a thread of its own: its connections close and the cluster
     * sees it gone at once, while Hazelcast's terminate() still waits up to 3 s for the member's own tasks (its
     * share, blocked on the held requests) before it returns, which no assertion reads.
     */
    private void crash(HazelcastInstance worker) {
        crashed = CompletableFuture.runAsync(() -> worker.getLifecycleService().terminate());
    }

    @AfterEach
    void stop() throws Exception {
        release.values().forEach(CountDownLatch::countDown);
        if (crashed != null) crashed.get(30, TimeUnit.SECONDS); // its share ends once the held requests are let go
        for (HazelcastInstance w : workers) {
            if (w.getLifecycleService().isRunning()) w.shutdown();
        }
        if (coordinator != null) coordinator.close();
        if (server != null) server.stop(0);
    }

    private static String prefix(String requestId) {
        return requestId.substring(0, requestId.lastIndexOf('-'));
    }

    /** The run's live records, as the coordinator tells them, into {@code live}. */
    private static Coordinator.Live collecting(List<ScheduledRecord> live) {
        return new Coordinator.Live() {
            @Override
            public void started(long startNanos) {
            }

            @Override
            public void onRecord(ScheduledRecord record) {
                live.add(record);
            }
        };
    }

    @Test
    @Timeout(180)
    void aLostWorkersRequestsInFlightAreLostAtTheirSendsTheRestNotSentAndTheLossIsToldAtOnce() throws Exception {
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
        ClientSpec client = new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 8, 300_000, null, 10_000,
                Map.of(), false, null, ConnectionMode.PRECONNECT);
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < 20; i++) specs.add(new RequestSpec(i, "prompt number " + i, 5, 8));
        // held requests outlast the waits below: no idle timeout fails them meanwhile
        List<ScheduledRecord> live = new CopyOnWriteArrayList<>();
        CompletableFuture<MergedRun> running = CompletableFuture.supplyAsync(() -> coordinator.run(
                DistributedPlan.closedLoop(client, specs, 4, Duration.ofSeconds(120)), members, Map.of(),
                text -> 1, () -> false, collecting(live)));
        // each worker: 3 answered, its 2 slots' next requests held
        assertTrue(await(() -> held.size() == 2 && held.values().stream().allMatch(h -> h.size() == 2)),
                "held: " + held);
        String lostId = ClusterNode.idOf(members.get(1)); // the second-listed: its loss was told after the first's end
        assertTrue(await(() -> live.stream().filter(r -> lostId.equals(r.record().workerId())).count() == ANSWERED),
                "the lost worker's records streamed: " + live);
        String lostClient = prefix(live.stream().filter(r -> lostId.equals(r.record().workerId())).findFirst()
                .orElseThrow().record().clientRequestId());
        String otherClient = held.keySet().stream().filter(k -> !k.equals(lostClient)).findFirst().orElseThrow();
        // the word of its sends travels in messages of their own, applied on the coordinator's threads: the crash
        // waits until the coordinator holds both requests in flight as sent
        assertTrue(await(() -> sentWithoutRecord(lostId) == 2), "the coordinator heard of the 2 sends in flight");
        crash(workers.stream().filter(w -> w.getCluster().getLocalMember().getUuid()
                .equals(members.get(1).getUuid())).findFirst().orElseThrow());

        // told while the other worker still runs, its requests in flight counted as failed by the progress line
        boolean toldInTime = await(() -> live.stream().filter(r -> lostId.equals(r.record().workerId())
                && !r.record().succeeded() && r.record().failure().kind() == FailureKind.LOST).count() == 2);
        release.get(otherClient).countDown();
        MergedRun run = running.get(120, TimeUnit.SECONDS);
        assertTrue(toldInTime, "the progress line heard of no lost request before the other worker ended: "
                + logLines);
        assertTrue(logLines.stream().anyMatch(l -> l.contains("worker " + lostId + " left the cluster mid-run")
                && l.contains("2 requests it had sent without their records reaching the coordinator are recorded "
                + "as lost, 5 of its 10 it never said it sent are not sent")), logLines::toString);

        // the server's truth: 10 + 5 arrived; 5 of the lost worker's never did
        assertEquals(15, arrivals.size(), arrivals::toString);
        assertEquals(15, run.requestsSent(), "the requests sent are those the server saw");
        assertEquals(15, run.records().size());
        List<RequestRecord> lostRecords = run.records().stream().filter(r -> !r.succeeded()).toList();
        assertTrue(lostRecords.stream().allMatch(r -> r.failure().kind() == FailureKind.LOST), lostRecords::toString);
        assertEquals(Set.copyOf(held.get(lostClient)), lostRecords.stream().map(RequestRecord::clientRequestId)
                .collect(Collectors.toSet()), "LOST: exactly the requests in flight when it died");
        WorkerReport report = run.workers().get(1);
        assertEquals(5, report.recorded());
        assertEquals(2, report.lost());
        assertEquals(5, report.notSent());
        // a lost request started when it was sent, inside the window, which it does not move
        long windowEndMicros = (run.endEpochMillis() + 1) * 1_000L;
        for (RequestRecord r : lostRecords) {
            assertTrue(r.startEpochMicros() <= windowEndMicros, r.startEpochMicros() + " after the window's end "
                    + windowEndMicros);
        }
        long lastLostSend = run.timeline().stream().filter(r -> !r.record().succeeded())
                .mapToLong(ScheduledRecord::actualSendOffsetNanos).max().orElseThrow();
        assertTrue(lastLostSend <= run.measureStartNanos() + run.durationNanos());
        long otherLastEnd = run.timeline().stream().filter(r -> !lostId.equals(r.record().workerId()))
                .mapToLong(r -> r.actualSendOffsetNanos() + r.record().e2eNanos()).max().orElseThrow();
        assertTrue(otherLastEnd <= run.measureStartNanos() + run.durationNanos());
        // every connection opened counts, the lost worker's too
        assertEquals(4, run.preconnectNanos().length);
    }

    /**
     * A warmup request in flight when its worker dies is not measured, so not lost: as a single machine's warmup
     * records are, it is left out of every result (its record would have come only with the worker's outcome).
     * Each worker: 2 slots, 2 warmup requests, 10 measured; the first (a warmup) is held, the other warmup and the
     * next 2 measured answered, the 3rd measured held.
     */
    @Test
    @Timeout(180)
    void aWarmupRequestInFlightWhenItsWorkerDiesIsNotLost() throws Exception {
        holds = n -> n == 1 || n > ANSWERED + 1;
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
        ClientSpec client = new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 8, 300_000, null, 10_000,
                Map.of(), false, null, ConnectionMode.PRECONNECT);
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < 20; i++) specs.add(new RequestSpec(i, "prompt number " + i, 5, 8));
        List<ScheduledRecord> live = new CopyOnWriteArrayList<>();
        CompletableFuture<MergedRun> running = CompletableFuture.supplyAsync(() -> coordinator.run(
                DistributedPlan.closedLoop(client, specs, 4, Duration.ofSeconds(120), Warmup.requests(4)), members,
                Map.of(), text -> 1, () -> false, collecting(live)));
        assertTrue(await(() -> held.size() == 2 && held.values().stream().allMatch(h -> h.size() == 2)),
                "held: " + held);
        String lostId = ClusterNode.idOf(members.get(1));
        assertTrue(await(() -> live.stream().filter(r -> lostId.equals(r.record().workerId())).count() == 2),
                "the lost worker's measured records streamed: " + live);
        String lostClient = prefix(live.stream().filter(r -> lostId.equals(r.record().workerId())).findFirst()
                .orElseThrow().record().clientRequestId());
        String otherClient = held.keySet().stream().filter(k -> !k.equals(lostClient)).findFirst().orElseThrow();
        // the word of its sends, as above: the measured request in flight (a warmup's send is never told)
        assertTrue(await(() -> sentWithoutRecord(lostId) == 1), "the coordinator heard of the send in flight");
        crash(workers.stream().filter(w -> w.getCluster().getLocalMember().getUuid().equals(members.get(1).getUuid()))
                .findFirst().orElseThrow());

        boolean told = await(() -> logLines.stream().anyMatch(l -> l.contains("worker " + lostId + " left")));
        release.get(otherClient).countDown();
        MergedRun run = running.get(120, TimeUnit.SECONDS);
        assertTrue(told, logLines::toString);
        assertTrue(logLines.stream().anyMatch(l -> l.contains("worker " + lostId + " left the cluster mid-run")
                && l.contains(": 1 request it had sent without its record reaching the coordinator is recorded "
                + "as lost, 7 of its 10 it never said it sent are not sent")), logLines::toString);

        String warmupInFlight = held.get(lostClient).get(0);
        String measuredInFlight = held.get(lostClient).get(1);
        // the server saw the lost worker's 2 warmups and 3 measured, the other's 2 warmups and 10 measured
        assertEquals(17, arrivals.size(), arrivals::toString);
        assertEquals(13, run.requestsSent(), "measured requests only: " + run.records());
        assertEquals(13, run.records().size());
        List<RequestRecord> lostRecords = run.records().stream().filter(r -> !r.succeeded()).toList();
        assertEquals(List.of(measuredInFlight), lostRecords.stream().map(RequestRecord::clientRequestId).toList(),
                "LOST: the measured request in flight, not the warmup " + warmupInFlight);
        assertEquals(FailureKind.LOST, lostRecords.get(0).failure().kind());
        assertTrue(live.stream().noneMatch(r -> r.record().clientRequestId().equals(warmupInFlight)), live::toString);
        WorkerReport report = run.workers().get(1);
        assertEquals(3, report.recorded());
        assertEquals(1, report.lost());
        assertEquals(7, report.notSent());
        // the warmup records are the other worker's: the lost worker's went with it, none made up for it
        assertEquals(2, run.warmupRecords().size(), run.warmupRecords()::toString);
        assertTrue(run.warmupRecords().stream().allMatch(r -> prefix(r.clientRequestId()).equals(otherClient)),
                run.warmupRecords()::toString);
    }

    /**
     * The same in an open loop, whose warmup is the schedule's first arrivals: every request held, so the killed
     * worker dies with its 2 warmup arrivals and its 10 measured ones in flight; only the measured are lost.
     */
    @Test
    @Timeout(180)
    void anOpenLoopsWarmupArrivalsInFlightWhenTheirWorkerDiesAreNotLost() throws Exception {
        holds = n -> true;
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
        ClientSpec client = new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 16, 300_000, null, 10_000,
                Map.of(), false, null, ConnectionMode.PRECONNECT);
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < 20; i++) specs.add(new RequestSpec(i, "prompt number " + i, 5, 8));
        OpenLoopSettings open = OpenLoopSettings.builder(200).arrival(Arrival.constant()).seed(7).maxRequests(20)
                .warmup(Warmup.requests(4)).timeout(Duration.ofSeconds(120)).build();
        CompletableFuture<MergedRun> running = CompletableFuture.supplyAsync(() -> coordinator.run(
                DistributedPlan.openLoop(client, specs, open), members, Map.of(), text -> 1, () -> false,
                Coordinator.Live.NONE));
        assertTrue(await(() -> arrivals.size() == 24), "every arrival sent: " + arrivals);
        String lostId = ClusterNode.idOf(members.get(1));
        // the word of its sends, as above: its 10 measured arrivals in flight
        assertTrue(await(() -> sentWithoutRecord(lostId) == 10), "the coordinator heard of the 10 sends in flight");
        crash(workers.stream().filter(w -> w.getCluster().getLocalMember().getUuid().equals(members.get(1).getUuid()))
                .findFirst().orElseThrow());

        boolean told = await(() -> logLines.stream().anyMatch(l -> l.contains("worker " + lostId + " left")));
        release.values().forEach(CountDownLatch::countDown);
        MergedRun run = running.get(120, TimeUnit.SECONDS);
        assertTrue(told, logLines::toString);
        assertTrue(logLines.stream().anyMatch(l -> l.contains("worker " + lostId + " left the cluster mid-run")
                && l.contains(": 10 requests it had sent without their records reaching the coordinator are "
                + "recorded as lost, 0 of its 10 it never said it sent are not sent")), logLines::toString);

        List<RequestRecord> lostRecords = run.records().stream().filter(r -> !r.succeeded()).toList();
        assertEquals(10, lostRecords.size(), lostRecords::toString);
        assertTrue(lostRecords.stream().allMatch(r -> r.failure().kind() == FailureKind.LOST
                && lostId.equals(r.workerId())), lostRecords::toString);
        String lostClient = prefix(lostRecords.get(0).clientRequestId());
        assertEquals(12, held.get(lostClient).size(), "its 2 warmup and 10 measured arrivals were in flight");
        assertTrue(held.get(lostClient).containsAll(lostRecords.stream().map(RequestRecord::clientRequestId)
                .toList()));
        assertEquals(20, run.records().size());
        assertEquals(20, run.requestsSent());
        WorkerReport report = run.workers().get(1);
        assertEquals(10, report.lost());
        assertEquals(0, report.notSent());
        assertEquals(2, run.warmupRecords().size(), "the other worker's: " + run.warmupRecords());
        // the lost worker's slice of the schedule is known and its sends were told: the rates are the run's, not
        // unknown (each worker's slice of a constant 200 req/s is 100 req/s)
        assertEquals(200.0, run.openLoop().summary().scheduledRequestsPerSecond(), 1e-6);
        double sent = run.openLoop().summary().achievedSendRequestsPerSecond();
        assertTrue(Double.isFinite(sent) && sent > 0, "sent rate " + sent);
    }

    /** Worker {@code workerId}'s requests the coordinator holds as sent without their record. */
    private int sentWithoutRecord(String workerId) {
        return coordinator.sentWithoutRecord(workerId);
    }

    /** Waits for {@code condition}, at most 60 s: true when it came. */
    private static boolean await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) return false;
            Thread.sleep(20);
        }
        return true;
    }
}
