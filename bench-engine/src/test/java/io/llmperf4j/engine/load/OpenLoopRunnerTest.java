package io.llmperf4j.engine.load;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.engine.load.ClosedLoopRunnerTest.specs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OpenLoopRunnerTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    private static OpenLoopSettings.Builder fast(int n) {
        return OpenLoopSettings.builder(2000).arrival(Arrival.constant()).maxRequests(n).timeout(LONG);
    }

    private static List<ScheduledRecord> byArrival(LoadResult r) {
        List<ScheduledRecord> l = new ArrayList<>(r.timeline());
        l.sort(Comparator.comparingInt(ScheduledRecord::arrivalIndex));
        return l;
    }

    @Test
    void sendsEveryArrivalInOrderAtOrAfterItsIntendedTime() {
        FakeClient client = FakeClient.succeeding();
        OpenLoopSettings settings = fast(12).build();
        OpenLoopResult result = new OpenLoopRunner(client, String::length).run(specs(5), settings);

        assertEquals(12, result.records().size());
        assertEquals(12, result.requestsSent());
        assertEquals(0, result.arrivalsNotSent());
        assertFalse(result.timedOut());
        assertFalse(result.stopped());
        // arrival i sends spec i mod M
        assertEquals(List.of(0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1), client.sent.stream().map(RequestSpec::index).toList());
        ArrivalSchedule schedule = settings.schedule();
        List<ScheduledRecord> timeline = byArrival(result);
        for (int i = 0; i < 12; i++) {
            ScheduledRecord r = timeline.get(i);
            assertEquals(i, r.arrivalIndex());
            assertEquals(schedule.offsetNanos(i), r.intendedSendOffsetNanos());
            assertTrue(r.sendLagNanos() >= 0, "never early: " + r);
            assertEquals(("text of " + (i % 5)).length(), r.record().outputTokens()); // counted on the runner
            if (i > 0) {
                assertTrue(r.actualSendOffsetNanos() >= timeline.get(i - 1).actualSendOffsetNanos());
            }
        }
        OpenLoopSummary summary = result.summary();
        assertEquals(2000.0, summary.offeredRequestsPerSecond());
        assertEquals(2000.0, summary.scheduledRequestsPerSecond(), 1e-6);
        assertEquals(12, summary.sendLag().count());
        assertEquals(12, summary.requestsSucceeded());
    }

    @Test
    void sameSeedGivesTheSameIntendedTimesRunAfterRun() {
        OpenLoopSettings settings = OpenLoopSettings.builder(5000).arrival(Arrival.gamma(0.5)).seed(77).maxRequests(40)
                .timeout(LONG).build();
        OpenLoopRunner runner = new OpenLoopRunner(FakeClient.succeeding(), t -> 1);
        List<Long> first = byArrival(runner.run(specs(3), settings)).stream()
                .map(ScheduledRecord::intendedSendOffsetNanos).toList();
        List<Long> second = byArrival(runner.run(specs(3), settings)).stream()
                .map(ScheduledRecord::intendedSendOffsetNanos).toList();
        assertEquals(first, second);
        assertEquals(40, first.size());
    }

    @Test
    void warmupRecordsAreKeptApartAndFlagged() {
        FakeClient client = FakeClient.succeeding();
        List<RequestRecord> measured = new ArrayList<>();
        List<RequestRecord> warm = new ArrayList<>();
        OpenLoopResult result = new OpenLoopRunner(client, t -> 1).run(specs(4),
                fast(5).warmup(Warmup.requests(3)).build(), new RecordListener() {
                    @Override
                    public void onRecord(RequestRecord record) {
                        measured.add(record);
                    }

                    @Override
                    public void onWarmupRecord(RequestRecord record) {
                        warm.add(record);
                    }
                });
        assertEquals(8, client.sent.size());
        assertEquals(5, result.records().size());
        assertEquals(3, result.warmupRecords().size());
        assertEquals(5, result.requestsSent());
        assertEquals(measured, result.records());
        assertEquals(warm, result.warmupRecords());
        assertEquals(3, result.warmupArrivals());
        assertEquals(5, result.measuredArrivals());
        List<ScheduledRecord> t = byArrival(result);
        for (int i = 0; i < 8; i++) assertEquals(i < 3, t.get(i).warmup());
        assertEquals(t.get(3).intendedSendOffsetNanos(), result.measureStartOffsetNanos());
        assertEquals(5, result.summary().sendLag().count()); // warmup excluded from every figure
        assertEquals(5, LevelSummary.of(result, OutputTokens.SERVER_USAGE_ELSE_CLIENT).total());
    }

    @Test
    void capQueuesArrivalsAndTheirLatencyFromIntendedIncludesTheWait() {
        // 2 slots, 50 ms per request: at most 40 req/s are served while 200 req/s are offered
        DelayedClient client = new DelayedClient(50);
        try (client) {
            OpenLoopResult result = new OpenLoopRunner(client, t -> 2).run(specs(3), OpenLoopSettings.builder(200)
                    .arrival(Arrival.constant()).maxRequests(12).maxConcurrency(2).timeout(LONG).build());
            assertEquals(12, result.records().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded));
            assertTrue(client.maxInFlight.get() <= 2, "cap exceeded: " + client.maxInFlight.get());
            assertEquals(0, result.arrivalsNotSent()); // queued, never dropped
            for (ScheduledRecord r : result.timeline()) {
                assertEquals(r.sendLagNanos() + r.record().ttftNanos(), r.ttftFromIntendedNanos());
                assertEquals(r.sendLagNanos() + r.record().e2eNanos(), r.e2eFromIntendedNanos());
                assertTrue(r.ttftFromIntendedNanos() >= r.record().ttftNanos());
            }
            // the 12th arrival is due at 55 ms but can only start after 5 rounds of 50 ms
            ScheduledRecord last = byArrival(result).get(11);
            assertTrue(last.sendLagNanos() >= TimeUnit.MILLISECONDS.toNanos(150), "lag " + last.sendLagNanos());
            assertTrue(result.maxBacklog() >= 1);
            OpenLoopSummary s = result.summary();
            assertTrue(s.ttftFromIntended().maxNanos() > s.ttftFromActual().maxNanos());
            assertTrue(s.e2eFromIntended().p99Nanos() > s.e2eFromActual().p99Nanos());
            assertTrue(s.sendLag().maxNanos() >= TimeUnit.MILLISECONDS.toNanos(150));
        }
    }

    @Test
    void timeoutCancelsInFlightAndCountsWhatWasNeverSent() {
        // All ten arrivals are due within 10 ms; the cap (2) holds the third until the timeout. How many the pacer
        // sent before the timeout, and when, is the machine's doing (a loaded one may run it late, once it sent one),
        // so the counts are checked against what it sent and when: at most the cap, each cancelled, the rest never
        // sent, and the backlog the most arrivals due and not sent, at a send or at the timeout.
        FakeClient client = FakeClient.neverAnswering();
        Duration timeout = Duration.ofMillis(500);
        OpenLoopSettings settings = OpenLoopSettings.builder(1000).arrival(Arrival.constant()).maxRequests(10)
                .maxConcurrency(2).timeout(timeout).build();
        OpenLoopResult result = new OpenLoopRunner(client, t -> 0).run(specs(2), settings);
        assertTrue(result.timedOut());
        int sent = client.sent.size();
        assertTrue(sent <= 2, "cap exceeded: " + sent);
        assertEquals(sent, result.requestsSent());
        assertEquals(sent, result.records().size());
        assertTrue(result.records().stream().allMatch(r -> r.failure().kind() == FailureKind.CANCELLED));
        assertEquals(10 - sent, result.arrivalsNotSent());
        assertEquals(backlogAtSendsOrTimeout(byArrival(result), settings.schedule(), 10), result.maxBacklog());
        assertTrue(result.durationNanos() >= timeout.toNanos(), "ends at the timeout, not before");
    }

    /**
     * The most arrivals that were due and not sent: right after each send (at its actual offset; this client gives no
     * start stamp of its own, so that is the pacer's stamp before the send), and at the timeout, by which all
     * {@code arrivals} were due. A pacer run late sends its first arrival with the others due already.
     */
    private static int backlogAtSendsOrTimeout(List<ScheduledRecord> sent, ArrivalSchedule schedule, int arrivals) {
        int most = arrivals - sent.size();
        for (int k = 0; k < sent.size(); k++) {
            long at = sent.get(k).actualSendOffsetNanos();
            int due = 0;
            while (due < arrivals && schedule.offsetNanos(due) <= at) due++;
            most = Math.max(most, due - k - 1);
        }
        return most;
    }

    @Test
    void stopFromAnotherThreadEndsTheRun() throws Exception {
        FakeClient client = FakeClient.neverAnswering();
        OpenLoopRunner runner = new OpenLoopRunner(client, t -> 0);
        CompletableFuture<OpenLoopResult> running = CompletableFuture.supplyAsync(() -> runner.run(specs(4),
                OpenLoopSettings.builder(100).arrival(Arrival.constant()).maxRequests(1000).timeout(LONG).build()));
        while (client.sent.size() < 3) Thread.sleep(5);
        runner.stop();
        OpenLoopResult result = running.get(20, TimeUnit.SECONDS);
        assertTrue(result.stopped());
        assertFalse(result.timedOut());
        assertEquals(result.requestsSent(), result.records().size());
        assertEquals(client.sent.size(), result.records().size());
        assertTrue(result.records().stream().allMatch(r -> r.failure().kind() == FailureKind.CANCELLED));
        assertEquals(1000 - client.sent.size(), result.arrivalsNotSent());
    }

    /**
     * A stop between two arrivals, nothing in flight: the load was offered until the stop, so the window runs to it,
     * not to the last answer's end (QA: a 0.3 req/s loop stopped 2 s in with one 65 ms answer reported 15.3 req/s).
     * At 1 req/s the stop, 0.3 s after the second send, has 0.7 s before the third arrival for a starved test thread
     * to be late in (at 2 req/s it had 0.2 s).
     */
    @Test
    void aStopBetweenArrivalsEndsTheWindowAtTheStop() throws Exception {
        FakeClient client = FakeClient.succeeding();
        OpenLoopRunner runner = new OpenLoopRunner(client, t -> 0);
        CompletableFuture<OpenLoopResult> running = CompletableFuture.supplyAsync(() -> runner.run(specs(2),
                OpenLoopSettings.builder(1).arrival(Arrival.constant()).maxRequests(10).timeout(LONG).build()));
        while (client.sent.size() < 2) Thread.sleep(5); // the second arrival is due at 1 s
        Thread.sleep(300); // both answered at once; nothing in flight until the third arrival at 2 s
        runner.stop();
        OpenLoopResult result = running.get(20, TimeUnit.SECONDS);
        assertTrue(result.stopped(), "the stop cut the schedule");
        assertEquals(2, result.records().size(), "stopped before the third arrival");
        assertTrue(result.durationNanos() >= Duration.ofMillis(1300).toNanos(),
                "the window runs to the stop, at least 1.3 s after the first send: " + result.durationNanos());
    }

    @Test
    void aThrowingListenerStopsPacingAndCancelsInFlight() {
        FakeClient client = FakeClient.neverAnswering();
        FakeClient answering = FakeClient.succeeding();
        IllegalStateException boom = new IllegalStateException("disk full");
        OpenLoopRunner runner = new OpenLoopRunner(answering, t -> 0);
        assertEquals(boom, assertThrows(IllegalStateException.class, () -> runner.run(specs(2), fast(50).build(),
                r -> {
                    throw boom;
                })));
        assertTrue(answering.sent.size() <= 50);
        assertEquals(5, runner.run(specs(2), fast(5).build()).records().size()); // usable again
        assertEquals(0, client.sent.size());
    }

    @Test
    void emptySpecsAreRefused() {
        assertEquals("specs must not be empty", assertThrows(IllegalArgumentException.class,
                () -> new OpenLoopRunner(FakeClient.succeeding(), t -> 0).run(List.of(), fast(1).build()))
                .getMessage());
    }
}
