package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.HeaderWait;
import io.llmperf4j.engine.harness.HarnessListener;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessRunner;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.harness.IterationResult;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A coordinator and two workers as members in this JVM, on 127.0.0.1, against the simulated server. */
class ClusterRunTest {
    private static SimulatedServer server;
    private static Coordinator coordinator;
    private static LocalWorkers workers;
    private static List<Member> members;

    @BeforeAll
    static void startCluster() throws IOException {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(10)).interTokenDelay(Duration.ofMillis(1)).build());
        String name = "test-" + UUID.randomUUID();
        // the coordinator names only itself (its workers are not up yet) and the workers name it: LocalWorkers
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        coordinator = Coordinator.start(new ClusterSettings(name, List.of(c), c), line -> { });
        workers = LocalWorkers.start(name, c, List.of(api -> "", api -> ""));
        members = coordinator.awaitWorkers(2, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopCluster() {
        if (coordinator != null) coordinator.close(); // first: no member has left, so it probes no address
        if (workers != null) workers.close();
        if (server != null) server.close();
    }

    private static ClientSpec client(URI endpoint) {
        return client(endpoint, ConnectionMode.PRECONNECT);
    }

    private static ClientSpec client(URI endpoint, ConnectionMode mode) {
        return new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 8, 60_000, null, 10_000, Map.of(),
                false, null, mode);
    }

    /**
     * Tells the test where the shared start instant is on this machine's wall clock (microseconds), converted as the
     * product converts it: through a pair of clock reads with nothing between them, as one with a preemption between
     * its two reads would misplace every worker by the preemption.
     */
    private static Coordinator.Live sharedStartWallMicros(long[] into) {
        return new Coordinator.Live() {
            @Override
            public void started(long startNanos) {
                into[0] = EpochClock.anchor().epochMicrosOf(startNanos);
            }

            @Override
            public void onRecord(ScheduledRecord record) {
            }
        };
    }

    private static List<RequestSpec> specs(int n) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) specs.add(new RequestSpec(i, "prompt number " + i, 5, 8));
        return specs;
    }

    @Test
    @Timeout(60)
    void anOpenLoopIsSplitByRateAndEveryArrivalIsRecordedOnce() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        Map<String, ClockOffset> clocks = coordinator.measureClocks(members);
        coordinator.checkReachable(members, endpoint);
        OpenLoopSettings open = OpenLoopSettings.builder(40).arrival(Arrival.constant()).seed(7).maxRequests(20)
                .timeout(Duration.ofSeconds(30)).build();
        MergedRun run = coordinator.run(DistributedPlan.openLoop(client(endpoint), specs(20), open), members, clocks,
                text -> text.length());

        assertEquals(20, run.records().size());
        assertEquals(20, run.records().stream().map(RequestRecord::promptIndex).collect(Collectors.toSet()).size());
        assertTrue(run.records().stream().allMatch(RequestRecord::succeeded));
        Set<String> ids = run.records().stream().map(RequestRecord::workerId).collect(Collectors.toSet());
        assertEquals(2, ids.size());
        assertTrue(run.records().stream().allMatch(r -> r.outputTokens() == r.generatedText().length()),
                "output tokens are counted on the coordinator");
        assertNotNull(run.openLoop());
        assertEquals(20, run.openLoop().measuredArrivals());
        assertEquals(20, run.openLoop().requestsSent());
        // 20 constant arrivals at 40/s over two staggered workers: the last is sent about 0.475 s after the start
        double lastSendSeconds = run.timeline().stream().mapToLong(r -> r.actualSendOffsetNanos()).max()
                .orElseThrow() / 1e9;
        assertTrue(lastSendSeconds > 0.4 && lastSendSeconds < 1.5, "last send at " + lastSendSeconds + " s");
        assertNotNull(run.openLoop().clientOverhead(), "the workers' clients, merged");
        for (WorkerReport w : run.workers()) {
            assertEquals(10, w.recorded(), w::toString);
            assertTrue(w.clientOverhead().lagSamples() > 0, "each worker watches its own client: " + w);
            assertTrue(w.clockOffset().roundTripMicros() >= 0);
            assertTrue(w.startLagNanos() >= 0 && w.startLagNanos() < 500_000_000L, w::toString);
        }
    }

    /**
     * --max-concurrency caps the whole cluster: a cap below the worker count runs on as many workers as the cap (the
     * QA's cap of 1 over 2 workers let 2 in flight, one on each, while the console said "max concurrency 1").
     */
    @Test
    @Timeout(60)
    void aConcurrencyCapBelowTheWorkerCountRunsOnAsManyWorkersAndHoldsAcrossThem() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        OpenLoopSettings open = OpenLoopSettings.builder(40).arrival(Arrival.constant()).seed(7).maxRequests(8)
                .maxConcurrency(1).timeout(Duration.ofSeconds(30)).build();
        MergedRun run = coordinator.run(DistributedPlan.openLoop(client(endpoint), specs(8), open), members,
                Map.of(), text -> 1);

        assertEquals(1, run.workers().size(), run.workers()::toString);
        assertEquals(8, run.records().size());
        assertTrue(run.records().stream().allMatch(RequestRecord::succeeded));
        // one in flight at a time: each request ends before the next is sent (one worker's clock)
        List<ScheduledRecord> bySend = run.timeline().stream()
                .sorted(java.util.Comparator.comparingLong(ScheduledRecord::actualSendOffsetNanos)).toList();
        for (int i = 1; i < bySend.size(); i++) {
            ScheduledRecord before = bySend.get(i - 1);
            assertTrue(bySend.get(i).actualSendOffsetNanos() >= before.actualSendOffsetNanos()
                    + before.record().e2eNanos(), "request " + i + " was sent while the one before was in flight");
        }
    }

    @Test
    @Timeout(60)
    void anOpenLoopOfFiveRequestsPerSecondOverTwoWorkersSendsEachItsHalfOfOneSchedule() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        OpenLoopSettings open = OpenLoopSettings.builder(5).arrival(Arrival.poisson()).seed(3)
                .duration(Duration.ofSeconds(3)).timeout(Duration.ofSeconds(30)).build();
        int whole = open.schedule().measuredArrivals();
        int[] expected = ArrivalSlice.measuredCounts(open.schedule(), 2);
        MergedRun run = coordinator.run(DistributedPlan.openLoop(client(endpoint), specs(40), open), members,
                Map.of(), text -> 1);

        assertEquals(whole, run.records().size(), "exactly the single-machine schedule's arrivals");
        assertEquals(2, run.workers().size());
        for (int i = 0; i < 2; i++) {
            WorkerReport w = run.workers().get(i);
            assertEquals(expected[i], w.recorded(), w::toString);
            assertEquals(expected[i], w.assigned(), w::toString);
        }
        assertTrue(Math.abs(expected[0] - expected[1]) <= 1, expected[0] + " and " + expected[1]);
        // each intended send time, less its worker's start lag, is one of the single-machine schedule's, each once
        Map<String, Long> lag = run.workers().stream()
                .collect(Collectors.toMap(WorkerReport::workerId, WorkerReport::startLagNanos));
        long[] intended = run.timeline().stream()
                .mapToLong(r -> r.intendedSendOffsetNanos() - lag.get(r.record().workerId())).sorted().toArray();
        assertArrayEquals(open.schedule().offsetsNanos(), intended);
    }

    @Test
    @Timeout(60)
    void aClosedLoopWarmupIsSplitAndKeptOutOfTheMeasuredRecords() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        List<Long> starts = new ArrayList<>();
        List<ScheduledRecord> streamed = new ArrayList<>();
        long before = System.nanoTime();
        MergedRun run = coordinator.run(DistributedPlan.closedLoop(client(endpoint), specs(20), 4,
                Duration.ofSeconds(30), Warmup.requests(4)), members, Map.of(), text -> 1, () -> false,
                new Coordinator.Live() {
                    @Override
                    public void started(long startNanos) {
                        starts.add(startNanos);
                    }

                    @Override
                    public void onRecord(ScheduledRecord record) {
                        assertEquals(1, starts.size(), "the start comes first");
                        streamed.add(record);
                    }
                });
        assertEquals(20, run.records().size());
        assertEquals(20, run.records().stream().map(RequestRecord::promptIndex).collect(Collectors.toSet()).size());
        assertEquals(4, run.warmupRecords().size());
        assertTrue(run.measureStartNanos() > 0, "the measured window starts after the warmup");
        // told as it went: the shared start (the plan's lead ahead), then each measured record once, warmup not
        assertEquals(1, starts.size());
        assertTrue(starts.get(0) - before >= DistributedPlan.DEFAULT_START_LEAD.toNanos(), "the shared instant");
        assertEquals(run.records().stream().map(RequestRecord::clientRequestId).collect(Collectors.toSet()),
                streamed.stream().map(r -> r.record().clientRequestId()).collect(Collectors.toSet()));
        assertEquals(20, streamed.size());
        assertTrue(streamed.stream().noneMatch(ScheduledRecord::warmup));
        for (WorkerReport w : run.workers()) assertTrue(w.share().endsWith("warmup 2 requests"), w.share());
    }

    /**
     * The merged window against the records' own stamps: it starts at the first measured send (a closed loop after
     * warmup starts its window at that very send, as on one machine) and ends after the last measured record.
     */
    @Test
    @Timeout(60)
    void theMergedWindowRunsFromTheFirstMeasuredSendToAfterTheLastRecord() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        MergedRun run = coordinator.run(DistributedPlan.closedLoop(client(endpoint), specs(20), 4,
                Duration.ofSeconds(30), Warmup.requests(4)), members, Map.of(), text -> 1);

        List<ScheduledRecord> measured = run.timeline().stream().filter(r -> !r.warmup()).toList();
        assertEquals(20, measured.size());
        assertEquals(2, measured.stream().map(r -> r.record().workerId()).distinct().count());
        long firstSend = measured.stream().mapToLong(ScheduledRecord::actualSendOffsetNanos).min().orElseThrow();
        long lastEnd = measured.stream().mapToLong(r -> r.actualSendOffsetNanos() + r.record().e2eNanos()).max()
                .orElseThrow();
        assertEquals(firstSend, run.measureStartNanos(), "the window starts at the first measured send");
        assertTrue(run.measureStartNanos() + run.durationNanos() >= lastEnd, "and ends after the last record: "
                + (run.measureStartNanos() + run.durationNanos()) + " < " + lastEnd);
        assertEquals(run.durationNanos(), run.result(new ClosedLoopSettings(4, OptionalInt.of(20),
                Duration.ofSeconds(30), Warmup.requests(4), ClosedLoopSettings.PromptOrder.SEND_ORDER))
                .durationNanos(), "the window the summary divides by");
    }

    /**
     * Each worker's part sits on the shared timeline where its records' wall-clock starts put it (one machine, one
     * clock): from its runner's clock start, as the runner reports it. The closest record is taken, so a thread
     * descheduled between a send's two stamps does not count.
     */
    @Test
    @Timeout(60)
    void everyWorkersPartIsPlacedWhereItsRecordsWallClockStartsPutIt() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        OpenLoopSettings open = OpenLoopSettings.builder(40).arrival(Arrival.constant()).seed(7).maxRequests(20)
                .timeout(Duration.ofSeconds(30)).build();
        long[] sharedStartWallMicros = new long[1];
        MergedRun run = coordinator.run(DistributedPlan.openLoop(client(endpoint), specs(20), open), members,
                Map.of(), text -> 1, () -> false, sharedStartWallMicros(sharedStartWallMicros));

        assertEquals(20, run.records().size());
        Map<String, Long> closestMicros = new TreeMap<>();
        for (ScheduledRecord r : run.timeline()) {
            long placed = sharedStartWallMicros[0] + r.actualSendOffsetNanos() / 1_000L;
            closestMicros.merge(r.record().workerId(), Math.abs(r.record().startEpochMicros() - placed), Math::min);
        }
        assertEquals(2, closestMicros.size());
        // misplaced, every record of a worker would be off by the same amount: its clock's start lag
        for (Map.Entry<String, Long> w : closestMicros.entrySet()) {
            assertTrue(w.getValue() < 1_000, "worker " + w.getKey() + "'s closest record is " + w.getValue()
                    + " us from where its part places it: " + run.workers());
        }
    }

    /**
     * A clock offset within its error bound (half its probe's round trip) does not move a worker's start: on one
     * machine the clocks agree, and a busy probe's estimate (5.48 ms with a 12.9 ms round trip in a QA run) started
     * that worker's clock as much late in truth while the merge placed it at the shared instant, so its last tokens
     * fell after the window's end (output_tokens_delivered 3999 of 4000). Here worker 0's estimate is 30 ms with a
     * 100 ms round trip: its records are where its part places them, and every answer ends inside the window.
     */
    @Test
    @Timeout(60)
    void aClockOffsetWithinItsErrorBoundDoesNotMoveAWorkersStart() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        OpenLoopSettings open = OpenLoopSettings.builder(40).arrival(Arrival.constant()).seed(7).maxRequests(20)
                .timeout(Duration.ofSeconds(30)).build();
        long[] sharedStartWallMicros = new long[1];
        Map<String, ClockOffset> clocks = Map.of(ClusterNode.idOf(members.get(0)), new ClockOffset(30_000, 100_000),
                ClusterNode.idOf(members.get(1)), new ClockOffset(0, 100_000));
        MergedRun run = coordinator.run(DistributedPlan.openLoop(client(endpoint), specs(20), open), members,
                clocks, text -> 1, () -> false, sharedStartWallMicros(sharedStartWallMicros));

        assertEquals(20, run.records().size());
        Map<String, Long> closestMicros = new TreeMap<>();
        for (ScheduledRecord r : run.timeline()) {
            long placed = sharedStartWallMicros[0] + r.actualSendOffsetNanos() / 1_000L;
            closestMicros.merge(r.record().workerId(), Math.abs(r.record().startEpochMicros() - placed), Math::min);
        }
        // the subject is the 30 ms estimate not applied: 10 ms tells it apart, where a loaded machine once put a
        // worker's records 1.09 ms off (a clean-clone verify with two test JVMs; a late wake-up is in the start lag,
        // a clock pair read across a preemption was not: see EpochClock.anchor)
        for (Map.Entry<String, Long> w : closestMicros.entrySet()) {
            assertTrue(w.getValue() < 10_000, "worker " + w.getKey() + "'s closest record is " + w.getValue()
                    + " us from where its part places it: " + run.workers());
        }
        long windowEndMicros = sharedStartWallMicros[0] + (run.measureStartNanos() + run.durationNanos()) / 1_000L;
        for (RequestRecord r : run.records()) {
            long end = r.startEpochMicros() + r.e2eNanos() / 1_000L;
            assertTrue(end <= windowEndMicros + 10_000, r.clientRequestId() + " of " + r.workerId() + " ended "
                    + (end - windowEndMicros) + " us after the window");
        }
    }

    /**
     * Each worker opens its slots' connections before the shared instant, as one machine opens them before its
     * clock, and its runner starts its clock at the instant, so the workers' clocks start together: a closed loop's
     * first wave is sent at its clock start, so each worker's first send on the shared timeline is where its clock
     * started (those send stamps are checked against the records' wall-clock starts, one clock here, as in the test
     * above). Their connect times are reported apart, one per slot, and no measured request paid a connect.
     */
    @Test
    @Timeout(60)
    void theWorkersOpenTheirConnectionsBeforeTheSharedInstantAndTheirClocksStartAtIt() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        long[] sharedStart = new long[1];
        MergedRun run = coordinator.run(DistributedPlan.closedLoop(client(endpoint), specs(16), 8,
                Duration.ofSeconds(30)), members, Map.of(), text -> 1, () -> false, sharedStartWallMicros(sharedStart));

        assertEquals(16, run.records().size());
        assertTrue(run.records().stream().allMatch(RequestRecord::succeeded), run.records()::toString);
        Map<String, Long> firstSend = new TreeMap<>();
        Map<String, Long> closestMicros = new TreeMap<>();
        for (ScheduledRecord r : run.timeline()) {
            firstSend.merge(r.record().workerId(), r.actualSendOffsetNanos(), Math::min);
            long placed = sharedStart[0] + r.actualSendOffsetNanos() / 1_000L;
            closestMicros.merge(r.record().workerId(), Math.abs(r.record().startEpochMicros() - placed), Math::min);
        }
        assertEquals(2, firstSend.size());
        for (String w : closestMicros.keySet()) {
            assertTrue(closestMicros.get(w) < 1_000, "worker " + w + "'s send stamps are where its records' "
                    + "wall-clock starts put them, within " + closestMicros.get(w) + " us");
        }
        // tens of microseconds, up to 6 ms on a 2-core machine at load average 7, 10.4 ms at 18 and 53 ms at 32 (the
        // wake-up for the instant is late). Whether the connections were opened before the instant is asserted below
        // from the records (no request paid a connect), not from this delay: the bound only catches a clock that did
        // not start at the instant at all (a worker that waited for something else), so it is wide
        for (Map.Entry<String, Long> w : firstSend.entrySet()) {
            assertTrue(w.getValue() >= 0 && w.getValue() < 1_000_000_000L, "worker " + w.getKey()
                    + "'s first request went out " + w.getValue() / 1e6 + " ms after the shared instant: "
                    + run.workers());
        }
        long apart = Math.abs(firstSend.values().stream().reduce((a, b) -> a - b).orElseThrow());
        assertTrue(apart < 1_000_000_000L, "the workers' clocks started " + apart / 1e6 + " ms apart");
        LoadResult result = run.result(new ClosedLoopSettings(8, OptionalInt.of(16), Duration.ofSeconds(30),
                Warmup.NONE, ClosedLoopSettings.PromptOrder.SEND_ORDER));
        assertEquals(8, result.preconnectNanos().length, "each worker's 4 slots, opened before the instant");
        assertTrue(Arrays.stream(result.preconnectNanos()).allMatch(n -> n > 0));
        assertTrue(run.records().stream().allMatch(r -> r.connectNanos() < 0), "no request paid a connect");
    }

    /** llmperf's way on the workers too: a new connection for every request, none opened beforehand. */
    @Test
    @Timeout(60)
    void aWorkerOpensANewConnectionForEveryRequestInPerRequestMode() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        MergedRun run = coordinator.run(DistributedPlan.closedLoop(client(endpoint, ConnectionMode.PER_REQUEST),
                specs(8), 4, Duration.ofSeconds(30)), members, Map.of(), text -> 1);

        assertEquals(8, run.records().size());
        assertEquals(2, run.records().stream().map(RequestRecord::workerId).distinct().count());
        assertTrue(run.records().stream().allMatch(r -> r.succeeded() && r.connectNanos() > 0),
                run.records()::toString);
        assertEquals(0, run.preconnectNanos().length);
    }

    @Test
    @Timeout(60)
    void aStopEndsEveryShareWithItsRecordsAndCancelsWhatIsInFlight() throws Exception {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        List<RequestSpec> slow = new ArrayList<>();
        for (int i = 0; i < 20; i++) slow.add(new RequestSpec(i, "prompt " + i, 5, 400)); // about 0.4 s each
        // the stop comes once a record has reached the coordinator (a fixed sleep let a loaded machine stop the run
        // before its first answer); each slot's 10 requests take some 4 s, so most are still to send
        CountDownLatch firstRecord = new CountDownLatch(1);
        Coordinator.Live live = new Coordinator.Live() {
            @Override
            public void started(long startNanos) {
            }

            @Override
            public void onRecord(ScheduledRecord record) {
                firstRecord.countDown();
            }
        };
        CompletableFuture<MergedRun> running = CompletableFuture.supplyAsync(() -> coordinator.run(
                DistributedPlan.closedLoop(client(endpoint), slow, 2, Duration.ofSeconds(30)), members, Map.of(),
                text -> 1, () -> false, live));
        assertTrue(firstRecord.await(30, TimeUnit.SECONDS), "no record reached the coordinator");
        coordinator.stop();
        MergedRun run = running.get(30, TimeUnit.SECONDS);

        assertTrue(run.stopped());
        assertTrue(run.records().size() < 20, () -> run.records().size() + " records");
        assertTrue(run.records().stream().anyMatch(RequestRecord::succeeded));
        assertTrue(run.records().stream().filter(r -> !r.succeeded())
                .allMatch(r -> r.failure().kind() == FailureKind.CANCELLED), run.records()::toString);
        assertEquals(0, run.lost());
    }

    @Test
    @Timeout(60)
    void aContinuousClosedLoopCyclesEachWorkersPartUntilItsTimeAndCancelsWhatIsInFlight() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        MergedRun run = coordinator.run(DistributedPlan.continuousClosedLoop(client(endpoint), specs(6), 4,
                Duration.ofMillis(1_500)), members, Map.of(), text -> 1);

        // 10 ms to the first token and 8 tokens 1 ms apart: about 20 ms a request, so each slot runs dozens
        long succeeded = run.records().stream().filter(RequestRecord::succeeded).count();
        assertTrue(succeeded > 6 * 4, succeeded + " requests in 1.5 s at concurrency 4");
        assertEquals(Set.of(0, 1, 2, 3, 4, 5), run.records().stream().map(RequestRecord::promptIndex)
                .collect(Collectors.toSet()), "every prompt, each many times");
        assertTrue(run.records().stream().filter(r -> !r.succeeded())
                .allMatch(r -> r.failure().kind() == FailureKind.CANCELLED), "only the time limit's cancellations");
        assertTrue(run.records().stream().filter(r -> !r.succeeded()).count() <= 4, "at most one per slot");
        for (WorkerReport w : run.workers()) {
            assertTrue(w.share().equals("closed loop, concurrency 2, for 1.5 s"), w.share());
        }
        long lastSend = run.timeline().stream().mapToLong(r -> r.actualSendOffsetNanos()).max().orElseThrow();
        assertTrue(lastSend < 1_600_000_000L, "nothing is sent after the time: " + lastSend / 1e6 + " ms");
        assertTrue(run.durationNanos() > 1_400_000_000L && run.durationNanos() < 2_500_000_000L,
                run.durationNanos() / 1e6 + " ms");
    }

    @Test
    @Timeout(60)
    void harnessForksRunOnTheWorkersAndAreCutIntoIterations() {
        URI endpoint = URI.create(server.baseUrl() + "/chat/completions");
        List<MergedRun> forks = new ArrayList<>();
        // each fork's progress, as ModelRun feeds its progress line: the fork's shared start, then its records
        List<Long> starts = new CopyOnWriteArrayList<>();
        List<List<ScheduledRecord>> progress = new CopyOnWriteArrayList<>();
        Set<Thread> progressThreads = ConcurrentHashMap.newKeySet();
        Thread caller = Thread.currentThread();
        ClusterForks clusterForks = new ClusterForks(coordinator, members, Map.of(), client(endpoint), 8,
                text -> 8, forks::add, startNanos -> {
                    starts.add(startNanos);
                    List<ScheduledRecord> fork = new CopyOnWriteArrayList<>();
                    progress.add(fork);
                    return new RecordListener() {
                        @Override
                        public void onRecord(RequestRecord record) {
                        }

                        @Override
                        public void onScheduledRecord(ScheduledRecord record) {
                            fork.add(record);
                            progressThreads.add(Thread.currentThread());
                        }
                    };
                });
        HarnessResult result = new HarnessRunner(clusterForks, RequestRecord::outputTokens).run("test", Map.of(),
                specs(6), new ClosedLoopSettings(4, OptionalInt.empty(), Duration.ofSeconds(30), Warmup.NONE,
                        ClosedLoopSettings.PromptOrder.SEND_ORDER),
                HarnessSettings.of(1, Duration.ofMillis(300), 2, Duration.ofMillis(300), 2), HarnessListener.NONE);

        assertEquals(2, forks.size(), "one distributed run per fork");
        for (MergedRun fork : forks) {
            assertEquals(2, fork.workers().size());
            assertTrue(fork.records().stream().anyMatch(RequestRecord::succeeded));
        }
        // live progress per fork, as a plain distributed level has: each record once, streamed by the workers as it
        // ended (on the cluster's threads, while the fork ran), not only replayed after the fork
        assertEquals(2, starts.size(), "one progress start per fork");
        for (int f = 0; f < 2; f++) {
            assertEquals(forks.get(f).records().stream().map(RequestRecord::clientRequestId).sorted().toList(),
                    progress.get(f).stream().map(r -> r.record().clientRequestId()).sorted().toList(), "fork " + f);
        }
        assertTrue(progressThreads.stream().anyMatch(t -> t != caller), progressThreads::toString);
        assertEquals(2, result.forks().size());
        assertTrue(!result.aborted());
        for (var fork : result.forks()) {
            assertEquals(1, fork.warmup().size());
            assertEquals(2, fork.measurement().size());
            for (IterationResult it : fork.measurement()) {
                assertTrue(it.requestsCompleted() > 0, it::toString);
                assertEquals(0, it.requestsFailed(), it::toString);
                // 4 slots, 8 tokens per request of about 20 ms: of the order of 1,600 tok/s
                double tokensPerSecond = it.outputTokensPerSecond();
                assertTrue(tokensPerSecond > 200 && tokensPerSecond < 3_200, tokensPerSecond + " tok/s");
            }
        }
    }

    /**
     * Iterations send for a time, not a count: with fresh prompts (a FreshRequests workload, as a synthetic workload
     * gives each fork) every worker takes its part of each later batch from the coordinator, so the server sees no
     * prompt twice, across iterations, forks and workers, and far more prompts than the forks' first batches hold.
     */
    @Test
    @Timeout(60)
    void harnessForksOnTheWorkersSendAFreshPromptWithEveryRequest() {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        List<String> repeated = new CopyOnWriteArrayList<>();
        try (SimulatedServer recording = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(10)).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(text -> {
                    if (!seen.add(text)) repeated.add(text);
                    return 5;
                }).build())) {
            URI endpoint = URI.create(recording.baseUrl() + "/chat/completions");
            List<MergedRun> forks = new CopyOnWriteArrayList<>();
            List<String> notices = new CopyOnWriteArrayList<>();
            ClusterForks clusterForks = new ClusterForks(coordinator, members, Map.of(), client(endpoint), 8,
                    text -> 8, forks::add, startNanos -> RecordListener.NONE);
            IntFunction<List<RequestSpec>> forkSpecs = fork -> new FreshRequests(prompts(fork, 0),
                    batch -> prompts(fork, batch), notices::add);
            HarnessResult result = new HarnessRunner(clusterForks, RequestRecord::outputTokens).run("test", Map.of(),
                    forkSpecs, new ClosedLoopSettings(4, OptionalInt.empty(), Duration.ofSeconds(30), Warmup.NONE,
                            ClosedLoopSettings.PromptOrder.SEND_ORDER),
                    HarnessSettings.of(1, Duration.ofMillis(300), 2, Duration.ofMillis(300), 2),
                    HarnessListener.NONE);

            assertTrue(!result.aborted());
            assertEquals(List.of(), repeated, "no prompt reaches the server twice");
            assertTrue(notices.stream().noneMatch(n -> n.contains("repeated")), notices::toString);
            int sent = 0;
            for (MergedRun fork : forks) {
                assertEquals(Set.copyOf(ids(members)), fork.records().stream().map(RequestRecord::workerId)
                        .collect(Collectors.toSet()), "both workers send");
                sent += (int) fork.records().stream().filter(RequestRecord::succeeded).count();
            }
            assertTrue(sent > 4 * 6, "beyond each fork's first batch of 6: " + sent);
            assertTrue(seen.size() >= sent, seen.size() + " prompts for " + sent + " requests");
            for (int fork = 0; fork < 2; fork++) {
                String laterBatch = "fork " + fork + " batch 2 ";
                assertTrue(seen.stream().anyMatch(p -> p.contains(laterBatch)), laterBatch + " was sent");
            }
        }
    }

    /** Batch {@code batch} of fork {@code fork}'s endless sequence: 6 prompts no other batch or fork has. */
    private static List<RequestSpec> prompts(int fork, int batch) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < 6; i++) specs.add(new RequestSpec(i, "fork " + fork + " batch " + batch + " prompt " + i, 5, 8));
        return specs;
    }

    private static List<String> ids(List<Member> workers) {
        return workers.stream().map(ClusterNode::idOf).toList();
    }

    /**
     * A server that accepts the workers' connections and never answers: each worker tells the coordinator its
     * requests waiting for their headers, and the coordinator's sum (what the progress line's silent-server note
     * reads, as a single machine's reads its client) counts every request of the run, the oldest's start on this
     * machine's clock.
     */
    @Test
    @Timeout(60)
    void theWorkersRequestsWaitingForHeadersReachTheCoordinator() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            List<Socket> held = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) held.add(silent.accept()); // held open, never answered
                } catch (IOException closed) {
                    // the test is over
                }
            }, "silent-server");
            acceptor.setDaemon(true);
            acceptor.start();
            URI endpoint = URI.create("http://127.0.0.1:" + silent.getLocalPort() + "/v1/chat/completions");
            AtomicReference<Supplier<HeaderWait>> waits = new AtomicReference<>();
            CompletableFuture<MergedRun> running = CompletableFuture.supplyAsync(() -> coordinator.run(
                    DistributedPlan.closedLoop(client(endpoint), specs(8), 4, Duration.ofSeconds(30)), members,
                    Map.of(), text -> 1, () -> false, Coordinator.Live.feeding(start -> RecordListener.NONE,
                            waits::set)));
            HeaderWait seen = HeaderWait.NONE;
            long before = System.nanoTime();
            while (seen.waiting() < 4) { // each worker's 2 slots, told once they have waited a second
                Thread.sleep(20); // the test's @Timeout bounds it
                seen = waits.get() == null ? HeaderWait.NONE : waits.get().get();
            }
            coordinator.stop();
            MergedRun run = running.get(30, TimeUnit.SECONDS);
            for (Socket s : held) s.close();

            assertEquals(4, seen.inFlight(), seen::toString);
            assertTrue(seen.oldestStartNanos() - before > 0, "the oldest was sent after the run began: " + seen);
            assertTrue(run.stopped());
            assertTrue(run.records().stream().noneMatch(RequestRecord::succeeded), run.records()::toString);
        }
    }

    @Test
    @Timeout(60)
    void aWorkerThatCannotReachTheEndpointIsNamedBeforeTheStart() throws IOException {
        URI closed = URI.create("http://127.0.0.1:" + LoopbackPorts.next() + "/v1/chat/completions");
        DistributedRunException e = assertThrows(DistributedRunException.class,
                () -> coordinator.checkReachable(members, closed));
        assertTrue(e.getMessage().startsWith("worker 127.0.0.1:"), e.getMessage());
        assertTrue(e.getMessage().contains("cannot reach 127.0.0.1:"), e.getMessage());
    }

    @Test
    @Timeout(60)
    void tooFewWorkersIsAClearErrorAfterTheWait() {
        DistributedRunException e = assertThrows(DistributedRunException.class,
                () -> coordinator.awaitWorkers(3, Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("for 3 workers in cluster"), e.getMessage());
        assertTrue(e.getMessage().contains("2 joined"), e.getMessage());
        // one missing: what starts it, and what keeps a running one away (the QA's "start them" while two ran)
        assertTrue(e.getMessage().contains("; if it is not running, start it with: llmperf4j worker --cluster "),
                e.getMessage());
        assertTrue(e.getMessage().contains("a worker already running joins within seconds when its --cluster is '"),
                e.getMessage());
    }
}
