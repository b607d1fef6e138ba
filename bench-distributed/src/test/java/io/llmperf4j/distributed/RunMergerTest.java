package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ArrivalSchedule;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.KeepUp;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the merge makes of a worker that never reported: the records it streamed, and LOST ones for the rest. */
class RunMergerTest {
    private static final ClientSpec CLIENT = new ClientSpec(URI.create("http://127.0.0.1:1/v1/chat/completions"),
            "openai", true, "m", Map.of(), true, 8, 60_000, null, 10_000, Map.of(), false, null, null);
    private static final List<RequestSpec> SPECS = List.of(new RequestSpec(0, "a", 5, 8), new RequestSpec(1, "b", 5, 8),
            new RequestSpec(2, "c", 5, 8));

    /**
     * Of a worker that left, the requests it said it sent without a record are LOST, at their sends; those it never
     * sent are neither records nor sends, and its part of the window ends at its last record or send, not when it
     * was missed.
     */
    @Test
    void aLostWorkerOfAFixedCountLeavesALostRecordPerRequestSentWithoutARecordAndTheRestNotSent() {
        LoadShare share = LoadShare.closed(2, 3, Duration.ofSeconds(10), Warmup.NONE);
        SentRequests.Sent inFlight = new SentRequests.Sent("r-flying", 1, 5, 8, 40_000_000L, 5_040_000L);
        MergedRun run = merge(share, DistributedPlan.closedLoop(CLIENT, SPECS, 2, Duration.ofSeconds(10)), 1,
                List.of(inFlight));

        assertEquals(2, run.records().size(), "the one it finished and the one in flight; the third never went out");
        assertEquals(2, run.requestsSent());
        assertEquals(1, run.lost());
        assertEquals(1, run.workers().get(0).notSent());
        RequestRecord lost = run.records().stream().filter(r -> !r.succeeded()).findFirst().orElseThrow();
        assertEquals(FailureKind.LOST, lost.failure().kind());
        assertEquals("r-flying", lost.clientRequestId());
        assertEquals(1, lost.promptIndex());
        assertEquals(5_040_000L, lost.startEpochMicros(), "started when it was sent");
        assertEquals(40_000_000L, run.timeline().stream().filter(r -> !r.record().succeeded()).findFirst()
                .orElseThrow().actualSendOffsetNanos());
        assertEquals(40_000_000L, run.durationNanos(), "to its last send (its record ended at 20 ms), never to "
                + "when it was missed (200 ms)");
        assertTrue(run.workers().get(0).leftReason().contains("1 request it had sent without its record reaching "
                + "the coordinator is recorded as lost, 1 it never said it sent are not sent"), run.workers().get(0)::leftReason);
    }

    @Test
    void aLostWorkersSentRequestsAreCountedInWordsThatFitTheCount() {
        assertEquals("every request it had sent has its record at the coordinator (none lost)",
                RunMerger.lostWords(0), "the QA saw '0 requests it had sent ... are recorded as lost'");
        assertEquals("1 request it had sent without its record reaching the coordinator is recorded as lost",
                RunMerger.lostWords(1));
        assertEquals("3 requests it had sent without their records reaching the coordinator are recorded as lost",
                RunMerger.lostWords(3));
    }

    @Test
    void aLostWorkerOfAContinuousClosedLoopLeavesALostRecordPerRequestInFlight() {
        LoadShare share = LoadShare.closedFor(2, Duration.ofSeconds(10));
        MergedRun run = merge(share, DistributedPlan.continuousClosedLoop(CLIENT, SPECS, 2, Duration.ofSeconds(10)),
                5, List.of(new SentRequests.Sent("a", 2, 5, 8, 130_000_000L, 1L),
                        new SentRequests.Sent("b", 0, 5, 8, 140_000_000L, 2L)));

        assertEquals(7, run.records().size(), "5 streamed, and the 2 in flight when the worker left");
        assertEquals(2, run.lost());
        assertEquals(0, run.workers().get(0).notSent(), "no count to fall short of");
        List<RequestRecord> lost = run.records().stream().filter(r -> !r.succeeded()).toList();
        assertEquals(List.of("a", "b"), lost.stream().map(RequestRecord::clientRequestId).toList());
        assertEquals(List.of(2, 0), lost.stream().map(RequestRecord::promptIndex).toList());
    }

    /**
     * The measured window is a single machine's, across the workers: one worker's is exactly its runner's (so the
     * same throughput as a plain run of its records), and two workers' runs from the first one's measured start to
     * the last one's end, each placed on the shared timeline by its start lag.
     */
    @Test
    void theWindowIsTheRunnersOwnForOneWorkerAndTheSpanOfAllOfThemForSeveral() {
        LoadShare share = LoadShare.closed(1, 2, Duration.ofSeconds(10), Warmup.requests(1));
        DistributedPlan plan = DistributedPlan.closedLoop(CLIENT, SPECS, 2, Duration.ofSeconds(10),
                Warmup.requests(2));
        // w1: clock 5 ms after the shared instant, window from its 40 ms (after warmup) for 300 ms
        WorkerOutcome early = outcome("w1", 5_000_000L, 40_000_000L, 300_000_000L, 1_000_000L);
        // w2: clock 70 ms after the shared instant (its connections took long), window from its 30 ms for 400 ms
        WorkerOutcome late = outcome("w2", 70_000_000L, 30_000_000L, 400_000_000L, 2_000_000L, 3_000_000L);

        MergedRun one = RunMerger.merge(List.of(part("w1", share, early)), plan, 1_000_000_000L, 77L, text -> 1);
        assertEquals(300_000_000L, one.durationNanos(), "the runner's own window");
        assertEquals(45_000_000L, one.measureStartNanos());
        assertEquals(1_000_045L, one.startEpochMillis());

        MergedRun two = RunMerger.merge(List.of(part("w1", share, early), part("w2", share, late)), plan,
                1_000_000_000L, 77L, text -> 1);
        assertEquals(45_000_000L, two.measureStartNanos(), "w1's first measured send");
        assertEquals(455_000_000L, two.durationNanos(), "to w2's end at 500 ms, after w1's at 345 ms");
        assertEquals(List.of(45_000_000L, 100_000_000L), two.timeline().stream()
                .map(ScheduledRecord::actualSendOffsetNanos).sorted().toList(), "sends on the shared timeline");
        // each worker's connections opened before the shared start, reported apart as a single machine's are
        LoadResult result = two.result(new ClosedLoopSettings(2, OptionalInt.of(2), Duration.ofSeconds(10),
                Warmup.requests(2), ClosedLoopSettings.PromptOrder.SEND_ORDER));
        assertArrayEquals(new long[] {1_000_000L, 2_000_000L, 3_000_000L}, result.preconnectNanos());
        assertEquals(77L, result.clockStartNanos(), "the shared start, the origin of the merged offsets");
    }

    /**
     * An open loop's scheduled and sent rates are the merged timeline's, as one machine's: (n - 1) / (last - first)
     * over the whole schedule and over every send; the QA's two workers summed their own rates (16.50 req/s against
     * the 16.41 the server saw).
     */
    @Test
    void anOpenLoopsRatesAreTheMergedTimelinesNotTheSumOfTheWorkersOwn() {
        OpenLoopSettings whole = new OpenLoopSettings(10, Arrival.poisson(), 11111L, OptionalInt.of(9),
                Optional.empty(), Duration.ofSeconds(10), OptionalInt.empty(), Warmup.NONE);
        DistributedPlan plan = DistributedPlan.openLoop(CLIENT, SPECS, whole);
        List<RunMerger.WorkerPart> parts = new ArrayList<>();
        double summed = 0;
        for (int slice = 0; slice < 2; slice++) {
            LoadShare share = LoadShare.open(whole, slice, 2, null);
            WorkerOutcome sentOnTime = openOutcome("w" + slice, share.schedule());
            summed += sentOnTime.scheduledRate();
            parts.add(part("w" + slice, share, sentOnTime));
        }
        double expected = whole.schedule().measuredRatePerSecond();

        OpenLoopResult open = RunMerger.merge(parts, plan, 0, 0, text -> 1).openLoop();

        assertEquals(expected, open.scheduledRequestsPerSecond(), 1e-9);
        assertEquals(expected, open.achievedSendRequestsPerSecond(), 1e-9, "every arrival sent on time");
        assertNotEquals(expected, summed, 1e-3, "the sum the QA saw differs");
    }

    /**
     * A worker lost mid-run stops sending: the sent rate is the merged sends' over their span, not its slice's
     * schedule added to the other's (the QA's 16.63 req/s while the server got 12.07).
     */
    @Test
    void aLostWorkersArrivalsNeverSentDoNotCountAsSent() {
        OpenLoopSettings whole = new OpenLoopSettings(10, Arrival.constant(), 1L, OptionalInt.of(10),
                Optional.empty(), Duration.ofSeconds(10), OptionalInt.empty(), Warmup.NONE);
        DistributedPlan plan = DistributedPlan.openLoop(CLIENT, SPECS, whole);
        LoadShare kept = LoadShare.open(whole, 0, 2, null);
        LoadShare left = LoadShare.open(whole, 1, 2, null);
        List<ScheduledRecord> streamed = openOutcome("w1", left.schedule()).timeline().subList(0, 1);
        RunMerger.WorkerPart lost = new RunMerger.WorkerPart("w1", left, SPECS, null, null, streamed, List.of(),
                new long[0], "worker w1 left the cluster mid-run");

        MergedRun merged = RunMerger.merge(List.of(part("w0", kept, openOutcome("w0", kept.schedule())), lost),
                plan, 0, 0, text -> 1);
        OpenLoopResult open = merged.openLoop();

        assertEquals(10, open.scheduledRequestsPerSecond(), 1e-9, "the whole schedule: 10 arrivals 100 ms apart");
        assertEquals(5 / 0.8, open.achievedSendRequestsPerSecond(), 1e-9,
                "6 sends (w0's 5 at 0-800 ms, w1's one at 100 ms) over 800 ms, not a sum of each worker's own rate");
        assertEquals(4, open.arrivalsNotSent());
        assertArrayEquals(new long[] {300_000_000L, 500_000_000L, 700_000_000L, 900_000_000L},
                open.unsentOfLostWorkersNanos(), "the lost worker's last 4 arrivals, due all the same");

        // the keep-up verdict counts them as not served: 5 + 1 successes of 10 arrivals (the QA's run read
        // "Kept up: yes (100.1 %)" while the server got 117 of 160)
        KeepUp keepUp = LevelSummary.of(merged.result(whole), OutputTokenPolicy.DEFAULT).keepUp();
        assertEquals(4, keepUp.failed());
        assertEquals("4x not sent, its load worker lost", keepUp.failedAs());
        assertEquals(0.6, keepUp.succeeded(), 1e-9);
        assertTrue(keepUp.sustainedHigh() < 0.95, () -> "fell behind: " + keepUp);
    }

    /** An open-loop worker's outcome that sent each arrival of its slice on time, each ending 10 ms later. */
    private static WorkerOutcome openOutcome(String worker, ArrivalSchedule slice) {
        List<ScheduledRecord> timeline = new ArrayList<>();
        for (int i = 0; i < slice.size(); i++) {
            long at = slice.offsetNanos(i);
            RequestRecord ok = new RequestRecord(i, worker + "-" + i, "s", 0, 5_000_000L, 10_000_000L, 10_000_000L,
                    3, new long[] {5_000_000L, 10_000_000L}, "ab", 5, 8, -1, 5, 2, "length", null)
                    .withWorkerId(worker);
            timeline.add(new ScheduledRecord(ok, i, at, at, false));
        }
        long first = slice.offsetNanos(0);
        return new WorkerOutcome(worker, 0, slice.lastOffsetNanos() + 10_000_000L - first, slice.size(), false,
                false, timeline, 0, 0, slice.measuredRatePerSecond(), slice.measuredRatePerSecond(),
                slice.measuredArrivals(), List.of(), first, 0, null, new long[0]);
    }

    /** A worker's outcome with one measured record sent at its window's start. */
    private static WorkerOutcome outcome(String worker, long lag, long measureStart, long duration,
                                         long... connects) {
        RequestRecord ok = new RequestRecord(0, "r-" + worker, "s", 0, 10_000_000L, 20_000_000L, 20_000_000L, 3,
                new long[] {10_000_000L, 20_000_000L}, "ab", 5, 8, -1, 5, 2, "length", null).withWorkerId(worker);
        return new WorkerOutcome(worker, lag, duration, 1, false, false,
                List.of(new ScheduledRecord(ok, -1, measureStart, measureStart, false)), 0, 0, Double.NaN,
                Double.NaN, 1, List.of(), measureStart, 0, null, connects);
    }

    private static RunMerger.WorkerPart part(String worker, LoadShare share, WorkerOutcome outcome) {
        return new RunMerger.WorkerPart(worker, share, SPECS, null, outcome, List.of(), List.of(), new long[0], null);
    }

    @Test
    void theMergedClientOverheadIsTheWorstWorkerFieldByField() {
        ClientOverhead calm = new ClientOverhead(1_000, 2, 8, 100, 10_000, 50_000, 90_000, 0.1, 0.2, 5, 1, 0.10);
        ClientOverhead busy = new ClientOverhead(1_000, 2, 4, 100, 20_000, 4_000_000, 9_000_000, Double.NaN, 0.9, 1, 3,
                0.95);
        ClientOverhead worst = RunMerger.worst(List.of(calm, busy));
        assertEquals(4_000_000, worst.lagP99Nanos());
        assertEquals(0.95, worst.processCpuShare());
        assertEquals(0.9, worst.ioBusyShareMax());
        assertEquals(0.1, worst.ioBusyShareMean(), "an unknown share does not hide a known one");
        assertEquals(200, worst.lagSamples());
        assertEquals(4, worst.availableProcessors(), "the smallest machine");
        assertEquals(null, RunMerger.worst(List.of()));
    }

    private static MergedRun merge(LoadShare share, DistributedPlan plan, int streamedCount,
                                   List<SentRequests.Sent> sentUnrecorded) {
        List<ScheduledRecord> streamed = new ArrayList<>();
        for (int i = 0; i < streamedCount; i++) {
            RequestSpec spec = SPECS.get(i % SPECS.size());
            RequestRecord ok = new RequestRecord(spec.index(), "r" + i, "s" + i, 0, 10_000_000L, 20_000_000L,
                    20_000_000L, 3, new long[] {10_000_000L, 20_000_000L}, "ab", 5, 8, 2, 5, 2, "length", null)
                    .withWorkerId("w1");
            streamed.add(new ScheduledRecord(ok, -1, i * 30_000_000L, i * 30_000_000L, false));
        }
        RunMerger.WorkerPart part = new RunMerger.WorkerPart("w1", share, SPECS, null, null, streamed, sentUnrecorded,
                new long[0], "worker w1 left the cluster mid-run");
        return RunMerger.merge(List.of(part), plan, 0, 0, text -> text.length());
    }
}
