package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A run whose token counting falls behind the wire (a slow tokenizer on degenerate answers), over real sockets: the
 * counter here holds its first record until the test lets it go, so every answer after it queues up uncounted. A
 * stop must close sending at once whatever is queued, answered requests keep their records, and the measured window
 * ends on the wire, not when the counting caught up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountingBacklogSocketTest {

    private static final Duration LONG = Duration.ofMinutes(1);
    /** A deadline the test waits past while the counting is held. */
    private static final Duration SHORT = Duration.ofSeconds(1);
    /** Backlogged answers before the stop. */
    private static final int BACKLOG = 60;

    private FaultServer server;
    private NettyLlmClient client;

    @BeforeEach
    void start() throws IOException {
        server = FaultServer.start();
        client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(8).build());
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        server.close();
    }

    /**
     * A slow tokenizer: holds its first text until {@link #release()}, then takes {@value #MILLIS_PER_RECORD} ms a
     * text, as a real one does on degenerate answers; counts characters; stamps each call's start.
     */
    private static final class HeldCounter implements TokenCounter {
        static final long MILLIS_PER_RECORD = 5;
        private final long millisPerRecord;
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch entered = new CountDownLatch(1);
        private final List<Long> callStarts = Collections.synchronizedList(new ArrayList<>());

        HeldCounter() {
            this(MILLIS_PER_RECORD);
        }

        HeldCounter(long millisPerRecord) {
            this.millisPerRecord = millisPerRecord;
        }

        @Override
        public int count(String text) {
            callStarts.add(System.nanoTime());
            entered.countDown();
            try {
                held.await();
                if (millisPerRecord > 0) Thread.sleep(millisPerRecord);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return text.length();
        }

        void release() {
            held.countDown();
        }

        long lastCallStart() {
            synchronized (callStarts) {
                return callStarts.get(callStarts.size() - 1);
            }
        }
    }

    private static List<RequestSpec> oks(int n) {
        return IntStream.range(0, n).mapToObj(i -> new RequestSpec(i, "ok", 10, 20)).toList();
    }

    /** Waits until the server has answered {@code n} requests while the counter holds the first record. */
    private void awaitBacklog(int n) throws InterruptedException {
        while (server.requestsReceived() < n) Thread.sleep(5);
    }

    /**
     * Stops {@code run} once a backlog built behind the held counter; returns the result and when stop() returned.
     */
    private <R> Stopped<R> stopBehindBacklog(HeldCounter counter, Supplier<R> run, Runnable stop) throws Exception {
        CompletableFuture<R> result = CompletableFuture.supplyAsync(run);
        assertTrue(counter.entered.await(30, TimeUnit.SECONDS));
        awaitBacklog(BACKLOG);
        stop.run();
        long stoppedAt = System.nanoTime();
        counter.release();
        return new Stopped<>(result.get(30, TimeUnit.SECONDS), stoppedAt);
    }

    private record Stopped<R>(R result, long stoppedAtNanos) {
    }

    /** Every record sent before the stop returned; the answered ones whole; the cancelled ones stamped at their send. */
    private void assertStoppedCleanly(LoadResult result, long stoppedAt, int inFlightAtMost, int answered) {
        int cancelled = 0;
        assertTrue(result.timeline().size() >= answered, "records: " + result.timeline().size());
        for (ScheduledRecord r : result.timeline()) {
            assertTrue(result.clockStartNanos() + r.actualSendOffsetNanos() - stoppedAt < 0,
                    "a request was sent after the stop: " + r);
            RequestRecord record = r.record();
            if (record.succeeded()) {
                assertEquals("Hello world!", record.generatedText());
                assertTrue(record.e2eNanos() > 0);
            } else {
                assertEquals(FailureKind.CANCELLED, record.failure().kind(), record::toString);
                cancelled++;
            }
        }
        long windowEnd = result.clockStartNanos() + result.endOffsetNanos();
        for (ScheduledRecord r : result.timeline()) { // QA: cancelled records ended up to 21 ms after the window
            if (r.warmup() || r.record().e2eNanos() <= 0) continue;
            long end = result.clockStartNanos() + r.actualSendOffsetNanos() + r.record().e2eNanos();
            assertTrue(end - windowEnd <= 0, () -> "a record ends " + (end - windowEnd) / 1e6
                    + " ms after the window: " + r);
        }
        assertTrue(cancelled <= inFlightAtMost, cancelled + " CANCELLED records; at most " + inFlightAtMost
                + " requests were on the wire at the stop");
        assertTrue(server.requestsReceived() <= result.timeline().size(),
                "the server saw " + server.requestsReceived() + " requests, " + result.timeline().size() + " records");
    }

    @Test
    void closedLoopStopClosesSendingAtOnceAndKeepsTheAnsweredRecordsWhole() throws Exception {
        HeldCounter counter = new HeldCounter();
        // no grace at all: only what the client never completed may be recorded by the runner itself
        ClosedLoopRunner runner = new ClosedLoopRunner(client, counter, Duration.ZERO);
        Stopped<ClosedLoopResult> s = stopBehindBacklog(counter,
                () -> runner.run(oks(8), new ClosedLoopSettings(4, OptionalInt.of(100_000), LONG)), runner::stop);

        assertTrue(s.result().stopped());
        assertEquals(s.result().requestsSent(), s.result().records().size());
        assertStoppedCleanly(s.result(), s.stoppedAtNanos(), 4, BACKLOG);
    }

    @Test
    void openLoopStopClosesSendingAtOnceAndKeepsTheAnsweredRecordsWhole() throws Exception {
        HeldCounter counter = new HeldCounter();
        OpenLoopRunner runner = new OpenLoopRunner(client, counter, Duration.ZERO);
        OpenLoopSettings settings = OpenLoopSettings.builder(500).arrival(Arrival.constant()).maxRequests(100_000)
                .maxConcurrency(4).timeout(LONG).build();
        Stopped<OpenLoopResult> s = stopBehindBacklog(counter, () -> runner.run(oks(8), settings), runner::stop);

        assertTrue(s.result().stopped());
        assertTrue(s.result().arrivalsNotSent() > 0);
        assertStoppedCleanly(s.result(), s.stoppedAtNanos(), 4, BACKLOG);
    }

    /**
     * Holds the counting until a backlog built and the run's one-second deadline passed; the run was given no grace
     * for its cancelled requests, so a record the runner made itself would show as CANCELLED.
     */
    private <R extends LoadResult> R runPastTheDeadline(HeldCounter counter, Supplier<R> run) throws Exception {
        long calledAt = System.nanoTime();
        CompletableFuture<R> result = CompletableFuture.supplyAsync(run);
        assertTrue(counter.entered.await(30, TimeUnit.SECONDS));
        awaitBacklog(BACKLOG);
        long deadlinePassed = calledAt + SHORT.toNanos();
        while (System.nanoTime() - deadlinePassed < 0) Thread.sleep(10);
        counter.release();
        return result.get(30, TimeUnit.SECONDS);
    }

    /**
     * Cut at the deadline: the window ends where sending was closed (or, with nothing on the wire then, at the last
     * answer's end), before the counting caught up; every request started before that, the answered ones whole. (A
     * send the deadline check let through may get the client's start stamp just after the deadline, never after the
     * close, which waits for it.)
     */
    private void assertCutAtTheDeadline(LoadResult result, HeldCounter counter) {
        long windowEnd = result.clockStartNanos() + result.endOffsetNanos();
        assertStoppedCleanly(result, windowEnd, 4, BACKLOG);
        assertTrue(windowEnd - counter.lastCallStart() < 0,
                "the window ended after the counting of the last record began");
    }

    @Test
    void closedLoopDeadlineKeepsTheAnsweredRecordsWhole() throws Exception {
        // a closed loop sends as fast as the server answers: thousands of records in the held second, which at
        // 5 ms each took 15 s to count after it. 1 ms each still counts well behind the wire, and every count but
        // the held first one starts after the deadline, so a window ended by the counting still fails the check.
        HeldCounter counter = new HeldCounter(1);
        ClosedLoopRunner runner = new ClosedLoopRunner(client, counter, Duration.ZERO);
        ClosedLoopResult result = runPastTheDeadline(counter,
                () -> runner.run(oks(8), new ClosedLoopSettings(4, OptionalInt.of(100_000), SHORT)));

        assertTrue(result.timedOut());
        assertEquals(result.requestsSent(), result.records().size());
        assertCutAtTheDeadline(result, counter);
    }

    @Test
    void openLoopDeadlineKeepsTheAnsweredRecordsWhole() throws Exception {
        HeldCounter counter = new HeldCounter();
        OpenLoopRunner runner = new OpenLoopRunner(client, counter, Duration.ZERO);
        OpenLoopSettings settings = OpenLoopSettings.builder(500).arrival(Arrival.constant()).maxRequests(100_000)
                .maxConcurrency(4).timeout(SHORT).build();
        OpenLoopResult result = runPastTheDeadline(counter, () -> runner.run(oks(8), settings));

        assertTrue(result.timedOut());
        assertCutAtTheDeadline(result, counter);
    }

    @Test
    void sessionStopClosesSendingAtOnceAndKeepsTheAnsweredRecordsWhole() throws Exception {
        HeldCounter counter = new HeldCounter();
        SessionRunner runner = new SessionRunner(client, counter, Duration.ZERO);
        List<RequestSpec> turns = IntStream.range(0, 8).mapToObj(i -> new RequestSpec(i, "ok", 10, 20,
                new RequestInputs(null, List.of(), List.of(), "s" + i, 0))).toList();
        PacedWorkload workload = PacedWorkload.sessions(turns, turn -> 0L);
        // the session runner sends on its own thread: its backlog is what came while it was held, one per slot
        CompletableFuture<ClosedLoopResult> result = CompletableFuture.supplyAsync(() -> runner.runClosed(workload,
                new ClosedLoopSettings(4, OptionalInt.of(100_000), LONG), RecordListener.NONE, () -> false));
        assertTrue(counter.entered.await(30, TimeUnit.SECONDS));
        awaitBacklog(4);
        runner.stop();
        long stoppedAt = System.nanoTime();
        counter.release();
        ClosedLoopResult r = result.get(30, TimeUnit.SECONDS);

        assertTrue(r.stopped());
        assertEquals(4, r.records().size(), "the 4 sent before the stop, and none after it");
        assertStoppedCleanly(r, stoppedAt, 3, 4); // the held one was answered; the last one the server took may not be
        assertEquals(4, server.requestsReceived());
    }

    @Test
    void theWindowEndsWhenTheLastRequestEndedOnTheWireNotWhenItsCountingDid() throws Exception {
        HeldCounter counter = new HeldCounter();
        ClosedLoopRunner runner = new ClosedLoopRunner(client, counter);
        CompletableFuture<ClosedLoopResult> run = CompletableFuture.supplyAsync(
                () -> runner.run(oks(8), new ClosedLoopSettings(4, OptionalInt.of(40), LONG)));
        assertTrue(counter.entered.await(30, TimeUnit.SECONDS));
        awaitBacklog(40); // every request answered while the first record is still being counted
        counter.release();
        ClosedLoopResult result = run.get(30, TimeUnit.SECONDS);

        assertEquals(40, result.records().size());
        assertFalse(result.timedOut());
        long windowEnd = result.clockStartNanos() + result.endOffsetNanos();
        long lastOnTheWire = Long.MIN_VALUE;
        for (ScheduledRecord r : result.timeline()) {
            assertTrue(r.record().succeeded());
            // the client's stamp of the last byte, on the run's clock (its start stamp is at or after the send)
            lastOnTheWire = Math.max(lastOnTheWire, result.clockStartNanos() + r.actualSendOffsetNanos()
                    + r.record().e2eNanos());
        }
        assertTrue(windowEnd - lastOnTheWire >= 0, "the window ends after the last answer's last byte");
        assertTrue(windowEnd - counter.lastCallStart() < 0,
                "the window ended " + (windowEnd - counter.lastCallStart()) / 1e6
                        + " ms after the last record's counting began");
        assertEquals(result.startEpochMillis() + (result.durationNanos()) / 1_000_000L, result.endEpochMillis(), 1);
    }

    @Test
    void openLoopWindowEndsOnTheWire() throws Exception {
        HeldCounter counter = new HeldCounter();
        OpenLoopRunner runner = new OpenLoopRunner(client, counter);
        OpenLoopSettings settings = OpenLoopSettings.builder(400).arrival(Arrival.constant()).maxRequests(40)
                .maxConcurrency(4).timeout(LONG).build();
        CompletableFuture<OpenLoopResult> run = CompletableFuture.supplyAsync(() -> runner.run(oks(8), settings));
        assertTrue(counter.entered.await(30, TimeUnit.SECONDS));
        awaitBacklog(40);
        counter.release();
        OpenLoopResult result = run.get(30, TimeUnit.SECONDS);

        assertEquals(40, result.records().size());
        long windowEnd = result.clockStartNanos() + result.endOffsetNanos();
        assertTrue(windowEnd - counter.lastCallStart() < 0,
                "the window ended " + (windowEnd - counter.lastCallStart()) / 1e6
                        + " ms after the last record's counting began");
    }

    /** Counts the measured requests over on the wire (an I/O thread tells it). */
    private static final class WireEnds implements RecordListener {
        final java.util.concurrent.atomic.AtomicInteger ended = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void onRecord(RequestRecord record) {
        }

        @Override
        public void onMeasuredWireEnd(long nanoTime) {
            ended.incrementAndGet();
        }

        void await(int n) throws InterruptedException {
            while (ended.get() < n) Thread.sleep(5);
        }
    }

    /**
     * A stop after every request had ended on the wire, while their tokens were still being counted, cut nothing:
     * the run is whole, not stopped (QA: "stopped by SIGINT" as if something had been cut).
     */
    @Test
    void aStopAfterEveryRequestEndedOnTheWireCutsNothing() throws Exception {
        HeldCounter counter = new HeldCounter();
        WireEnds wire = new WireEnds();
        ClosedLoopRunner closedLoop = new ClosedLoopRunner(client, counter);
        CompletableFuture<ClosedLoopResult> closed = CompletableFuture.supplyAsync(
                () -> closedLoop.run(oks(8), new ClosedLoopSettings(4, OptionalInt.of(40), LONG), wire));
        assertTrue(counter.entered.await(30, TimeUnit.SECONDS));
        wire.await(40);
        closedLoop.stop();
        counter.release();
        ClosedLoopResult c = closed.get(30, TimeUnit.SECONDS);
        assertFalse(c.stopped(), "the stop cut nothing");
        assertEquals(40, c.records().size());
        assertTrue(c.records().stream().allMatch(RequestRecord::succeeded));

        HeldCounter counter2 = new HeldCounter();
        WireEnds wire2 = new WireEnds();
        OpenLoopRunner openLoop = new OpenLoopRunner(client, counter2);
        OpenLoopSettings settings = OpenLoopSettings.builder(400).arrival(Arrival.constant()).maxRequests(40)
                .maxConcurrency(4).timeout(LONG).build();
        CompletableFuture<OpenLoopResult> open = CompletableFuture.supplyAsync(
                () -> openLoop.run(oks(8), settings, wire2));
        assertTrue(counter2.entered.await(30, TimeUnit.SECONDS));
        wire2.await(40);
        openLoop.stop();
        counter2.release();
        OpenLoopResult o = open.get(30, TimeUnit.SECONDS);
        assertFalse(o.stopped(), "the stop cut nothing");
        assertEquals(0, o.arrivalsNotSent());
        assertEquals(40, o.records().size());
        assertTrue(o.records().stream().allMatch(RequestRecord::succeeded));
    }
}
