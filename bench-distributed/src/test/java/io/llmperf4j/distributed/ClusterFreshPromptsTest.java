package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fresh prompts ({@link FreshRequests}) on a coordinator and two workers in this JVM, against a simulated server on
 * 127.0.0.1 that records every prompt: the coordinator numbers the whole sequence, so the workers' records share no
 * prompt index; an open loop for a time sends a prompt of its own with every arrival, the same for the same
 * sequence; and the sends that waited for a prompt on the workers are told once, on the coordinator, summed.
 */
class ClusterFreshPromptsTest {
    private static final List<String> prompts = new CopyOnWriteArrayList<>();
    private static final List<String> workerLines = new CopyOnWriteArrayList<>();
    private static SimulatedServer server;
    private static Coordinator coordinator;
    private static LocalWorkers workers;
    private static List<Member> members;

    @BeforeAll
    static void startCluster() throws IOException {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(text -> {
                    prompts.add(text.strip()); // the text the server counts: the message, a line break ahead
                    return 5;
                }).build());
        String name = "test-" + UUID.randomUUID();
        // the coordinator names only itself (its workers are not up yet) and the workers name it: LocalWorkers
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        coordinator = Coordinator.start(new ClusterSettings(name, List.of(c), c), line -> { });
        workers = LocalWorkers.start(name, c, List.of(api -> "", api -> ""), workerLines::add);
        members = coordinator.awaitWorkers(2, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopCluster() {
        if (coordinator != null) coordinator.close(); // first: no member has left, so it probes no address
        if (workers != null) workers.close();
        if (server != null) server.close();
    }

    @BeforeEach
    void clear() {
        prompts.clear();
    }

    private static ClientSpec client() {
        return new ClientSpec(URI.create(server.baseUrl() + "/chat/completions"), "openai", true, "m", Map.of(),
                true, 8, 60_000, null, 10_000, Map.of(), false, null, ConnectionMode.PRECONNECT);
    }

    /** Batch {@code k} of an endless sequence: {@code size} prompts no other batch has, numbered 0.. as drawn. */
    private static List<RequestSpec> batch(int k, int size) {
        return IntStream.range(0, size).mapToObj(i -> new RequestSpec(i, "batch " + k + " prompt " + i, 5, 2))
                .toList();
    }

    private static FreshRequests sequence(int size, IntFunction<List<RequestSpec>> later, List<String> notices) {
        return new FreshRequests(batch(0, size), later, notices::add);
    }

    /**
     * An open loop for a time over two workers sends many times its first batch, each arrival a prompt of its own:
     * 60 constant arrivals, 30 a worker, each worker taking its 3 of every batch of 6, so batches 0-9 exactly, numbered
     * 0-59 across the run (each worker numbered its own from 0 before). The same sequence run again sends the same
     * prompts.
     */
    @Test
    @Timeout(90)
    void anOpenLoopForATimeSendsAFreshPromptWithEveryArrivalNumberedAcrossTheWorkers() {
        OpenLoopSettings open = OpenLoopSettings.builder(40).arrival(Arrival.constant()).seed(3)
                .duration(Duration.ofMillis(1_500)).timeout(Duration.ofSeconds(30)).build();
        int arrivals = open.schedule().size();
        assertEquals(60, arrivals);
        List<String> notices = new CopyOnWriteArrayList<>();
        MergedRun run = coordinator.run(DistributedPlan.openLoop(client(),
                sequence(6, k -> batch(k, 6), notices), open), members, Map.of(), text -> 1);
        List<String> first = List.copyOf(prompts);

        assertEquals(arrivals, run.records().size());
        assertTrue(run.records().stream().allMatch(RequestRecord::succeeded), run.records()::toString);
        assertEquals(2, run.records().stream().map(RequestRecord::workerId).distinct().count());
        assertEquals(arrivals, first.size(), "the server saw every arrival");
        assertEquals(arrivals, new HashSet<>(first).size(), "no prompt twice: " + first);
        assertEquals(IntStream.range(0, 10).boxed().flatMap(k -> batch(k, 6).stream().map(RequestSpec::prompt))
                .collect(Collectors.toSet()), Set.copyOf(first), "batches 0-9, each prompt once");
        assertEquals(IntStream.range(0, arrivals).boxed().collect(Collectors.toSet()), run.records().stream()
                .map(RequestRecord::promptIndex).collect(Collectors.toSet()), "one index per prompt, 0-59");
        assertEquals(List.of(), notices);

        prompts.clear();
        MergedRun again = coordinator.run(DistributedPlan.openLoop(client(),
                sequence(6, k -> batch(k, 6), notices), open), members, Map.of(), text -> 1);
        assertEquals(arrivals, again.records().size());
        assertEquals(Set.copyOf(first), Set.copyOf(prompts), "the same sequence sends the same prompts");
    }

    /**
     * A closed loop for a time (a harness fork's load): every request's prompt index is its own, as its prompt is,
     * though each worker's part of every batch starts at a different place of the sequence.
     */
    @Test
    @Timeout(60)
    void aClosedLoopForATimeGivesEveryRequestAPromptIndexOfItsOwn() {
        List<String> notices = new CopyOnWriteArrayList<>();
        MergedRun run = coordinator.run(DistributedPlan.continuousClosedLoop(client(),
                sequence(4, k -> batch(k, 4), notices), 4, Duration.ofMillis(1_000)), members, Map.of(),
                text -> 1);

        List<Integer> indices = run.records().stream().map(RequestRecord::promptIndex).toList();
        assertTrue(indices.size() > 4 * 4, "beyond the first batch: " + indices.size());
        assertEquals(2, run.records().stream().map(RequestRecord::workerId).distinct().count());
        assertEquals(indices.size(), new HashSet<>(indices).size(), "an index shared by two records: " + indices);
        assertEquals(prompts.size(), new HashSet<>(prompts).size(), "a prompt sent twice");
        assertTrue(notices.stream().noneMatch(n -> n.contains("repeated")), notices::toString);
    }

    /**
     * The sends that waited for a prompt are told on the coordinator's console, once for the run, summed over the
     * workers, and on no worker's: the batches not drawn before the shared start are held until both workers have
     * sent, and the coordinator has recorded, every prompt they had (one a batch each), so each worker's next send
     * waits for one.
     */
    @Test
    @Timeout(60)
    void sendsThatWaitedForAPromptAreToldOnceOnTheCoordinatorSummedOverTheWorkers() {
        AtomicBoolean started = new AtomicBoolean();
        // each worker's slot keeps 2 x 1 + 64 prompts ready: its part of batch 0 and of the 65 batches it takes before
        // the clock; it takes the next 65 in one round trip, which the held draws hold up (the coordinator's draw
        // ahead of batch 66 may come before the start or not: either way it comes too late for that take)
        int had = 2 * (1 + 65);
        AtomicInteger drawnBeforeStart = new AtomicInteger();
        AtomicInteger recorded = new AtomicInteger();
        CountDownLatch bothRanOut = new CountDownLatch(1);
        Thread watch = new Thread(() -> {
            while (bothRanOut.getCount() > 0) {
                if (started.get() && recorded.get() >= had) {
                    bothRanOut.countDown();
                } else {
                    LockSupport.parkNanos(5_000_000L);
                }
            }
        });
        watch.setDaemon(true);
        watch.start();
        List<String> notices = new CopyOnWriteArrayList<>();
        FreshRequests held = sequence(2, k -> {
            if (!started.get()) {
                drawnBeforeStart.accumulateAndGet(k, Math::max);
            } else {
                try {
                    bothRanOut.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return batch(k, 2);
        }, notices);
        Coordinator.Live live = new Coordinator.Live() {
            @Override
            public void started(long startNanos) {
                started.set(true); // every worker has taken its first batches
            }

            @Override
            public void onRecord(ScheduledRecord record) {
                recorded.incrementAndGet();
            }
        };
        workerLines.clear();
        MergedRun run;
        try {
            run = coordinator.run(DistributedPlan.continuousClosedLoop(client(), held, 2, Duration.ofMillis(2_500)),
                    members, Map.of(), text -> 1, () -> false, live);
        } finally {
            bothRanOut.countDown();
        }

        assertTrue(drawnBeforeStart.get() >= 65, "drawn before the start: " + drawnBeforeStart);
        assertEquals(2, run.records().stream().map(RequestRecord::workerId).distinct().count());
        assertTrue(run.records().size() > had, "both workers sent their " + had + " prompts and more: "
                + run.records().size());
        Pattern waited = Pattern.compile("llmperf4j: prompts: (\\d+) of (\\d+) sends waited for a fresh prompt to be "
                + "drawn \\(\\d+\\.\\d ms in all\\): drawing fell behind the request rate");
        assertEquals(1, notices.size(), notices::toString);
        Matcher m = waited.matcher(notices.get(0));
        assertTrue(m.matches(), notices::toString);
        assertTrue(Integer.parseInt(m.group(1)) >= 2, "a send of each worker waited: " + notices);
        assertEquals(run.records().size(), Integer.parseInt(m.group(2)), "the sends of both workers");
        assertTrue(workerLines.stream().noneMatch(l -> l.contains("llmperf4j: prompts:")), workerLines::toString);
    }

    /**
     * The coordinator draws each batch ahead, so a worker's request for its next part is answered from a batch drawn
     * while it sent the one before: here drawing a batch "takes" 250 sends (its draw returns once the server has seen
     * 250 more prompts than when it began; the records reach the coordinator later), fewer than a batch of 800 holds,
     * and no send waits. Drawn on the spot, when a worker's own prompts ran low (66 ready), the draw began some 132
     * sends before the workers ran out, and waited for sends that could not come.
     */
    @Test
    @Timeout(90)
    void aDrawFasterThanSendingIsReadyBeforeAWorkerAsksForIt() {
        AtomicBoolean over = new AtomicBoolean();
        List<String> notices = new CopyOnWriteArrayList<>();
        FreshRequests slowToDraw = sequence(800, k -> {
            int from = prompts.size();
            while (prompts.size() < from + 250 && !over.get() && !Thread.currentThread().isInterrupted()) {
                LockSupport.parkNanos(1_000_000L);
            }
            return batch(k, 800);
        }, notices);
        MergedRun run;
        try {
            // a slot a worker: 66 prompts ready each, enough to ride out this JVM's pauses (server, workers, GC)
            run = coordinator.run(DistributedPlan.continuousClosedLoop(client(), slowToDraw, 2,
                    Duration.ofMillis(5_000)), members, Map.of(), text -> 1);
        } finally {
            over.set(true);
        }

        assertTrue(run.records().size() > 800 + 250, "beyond batch 0 and a draw: " + run.records().size());
        assertEquals(2, run.records().stream().map(RequestRecord::workerId).distinct().count());
        assertTrue(notices.stream().noneMatch(n -> n.contains("waited")), notices::toString);
        assertEquals(prompts.size(), new HashSet<>(prompts).size(), "a prompt sent twice");
    }
}
