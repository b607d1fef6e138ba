package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.ArrivalSchedule;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.stream.LongStream;

/**
 * Merges the workers' parts into one run. Every send offset is moved from its worker's clock start to the shared
 * start (the worker's start lag, measured on its own clock), so only start offsets cross machines. The measured
 * window is a single machine's, across the workers: from the first worker's first measured send (its window's
 * start) to the last worker's end (after its last record), so one worker's run has exactly its runner's window.
 * A worker that never reported contributes the records it streamed and one LOST record, at its send, for each
 * request it said it sent whose record never came; what it never sent is not sent (not a record, not a failure),
 * as a single machine's unsent budget is.
 */
final class RunMerger {

    /**
     * One worker's part.
     *
     * @param outcome          its report, or null when it left or failed
     * @param streamed         the records it streamed before that
     * @param sentUnrecorded   the requests it said it sent whose records never came, in send order
     * @param preconnectNanos  the connect times of the connections it said it opened before the start (used when
     *                         its outcome, which has them too, never came)
     * @param lostReason       why it never reported, or null
     */
    record WorkerPart(String workerId, LoadShare share, List<RequestSpec> specs, ClockOffset clock,
                      WorkerOutcome outcome, List<ScheduledRecord> streamed, List<SentRequests.Sent> sentUnrecorded,
                      long[] preconnectNanos, String lostReason) {
    }

    private RunMerger() {
    }

    /**
     * @param sharedStartEpochMicros the shared start instant on the coordinator's wall clock
     * @param sharedStartNanos       the same on its {@link System#nanoTime()}
     */
    static MergedRun merge(List<WorkerPart> parts, DistributedPlan plan, long sharedStartEpochMicros,
                           long sharedStartNanos, TokenCounter outputTokens) {
        List<ScheduledRecord> timeline = new ArrayList<>();
        LongStream.Builder preconnect = LongStream.builder();
        List<WorkerReport> reports = new ArrayList<>();
        List<RequestRecord> warmupRecords = new ArrayList<>();
        long windowStart = Long.MAX_VALUE;
        long windowEnd = 0;
        int warmupArrivals = 0;
        int sent = 0;
        boolean timedOut = false;
        boolean stopped = false;
        int arrivalsNotSent = 0;
        int maxBacklog = 0;
        int measuredArrivals = 0;
        List<ClientOverhead> clients = new ArrayList<>();
        LongStream.Builder unsentOfLost = LongStream.builder();
        for (WorkerPart part : parts) {
            List<ScheduledRecord> own = new ArrayList<>();
            WorkerOutcome o = part.outcome();
            int lost = 0;
            int notSent = 0;
            String left = null;
            if (o != null) {
                long shift = o.startLagNanos();
                for (ScheduledRecord r : o.timeline()) own.add(shifted(r, shift));
                windowStart = Math.min(windowStart, shift + o.measureStartNanos());
                windowEnd = Math.max(windowEnd, shift + o.measureStartNanos() + o.durationNanos());
                warmupRecords.addAll(o.warmupRecords());
                warmupArrivals += o.warmupArrivals();
                sent += o.requestsSent();
                timedOut |= o.timedOut();
                stopped |= o.stopped();
                arrivalsNotSent += o.arrivalsNotSent();
                maxBacklog += o.maxBacklog();
                measuredArrivals += o.measuredArrivals();
                if (o.clientOverhead() != null) clients.add(o.clientOverhead());
                for (long connect : o.preconnectNanos()) preconnect.add(connect);
            } else {
                own.addAll(part.streamed());
                List<ScheduledRecord> lostRecords = lostRecords(part.workerId(), part.sentUnrecorded(),
                        part.lostReason());
                lost = lostRecords.size();
                own.addAll(lostRecords);
                // its part of the window: to its last record's end or its last send, never to when it was missed
                for (ScheduledRecord r : own) windowEnd = Math.max(windowEnd, endOffset(r));
                sent += own.size();
                Integer assigned = part.share().assignedRequests();
                notSent = assigned == null ? 0 : Math.max(0, assigned - own.size());
                measuredArrivals += assigned != null && part.share().openLoop() ? assigned : own.size();
                if (part.share().openLoop()) {
                    arrivalsNotSent += notSent;
                    // it sends its slice in order: those it never sent are its last ones, due all the same
                    ArrivalSchedule slice = part.share().schedule();
                    for (int i = slice.size() - notSent; i < slice.size(); i++) unsentOfLost.add(slice.offsetNanos(i));
                }
                for (long connect : part.preconnectNanos()) preconnect.add(connect);
                left = part.lostReason() + ": " + lostWords(lost) + (assigned == null ? "" : ", " + notSent
                        + " it never said it sent are not sent (a send in its last milliseconds may be among them)");
            }
            List<ScheduledRecord> counted = new ArrayList<>(own.size());
            for (ScheduledRecord r : own) {
                counted.add(r.withRecord(ClientTokenCount.count(r.record(), outputTokens))); // as the local runners count
            }
            timeline.addAll(counted);
            int succeeded = (int) counted.stream().filter(r -> r.record().succeeded()).count();
            Integer assigned = part.share().assignedRequests();
            reports.add(new WorkerReport(part.workerId(), part.share().describe(), assigned == null ? 0 : assigned,
                    counted.size(), succeeded, lost, notSent, part.clock(), o == null ? -1 : o.startLagNanos(), left,
                    o == null ? null : o.clientOverhead()));
        }
        timeline.sort(Comparator.comparingLong(RunMerger::endOffset));
        List<RequestRecord> records = timeline.stream().map(ScheduledRecord::record).toList();
        long measureStart = windowStart == Long.MAX_VALUE ? 0 : windowStart;
        long duration = Math.max(0, windowEnd - measureStart);
        // cut to the millisecond once, from the microsecond: each cut moves the window's epoch start (and so, to the
        // delivered tokens' count, its end) earlier
        long windowStartEpochMillis = (sharedStartEpochMicros * 1_000L + measureStart) / 1_000_000L;
        long endEpochMillis = windowStartEpochMillis + duration / 1_000_000L;
        ClientOverhead client = worst(clients);
        long[] connects = preconnect.build().toArray();
        OpenLoopResult open = null;
        OpenLoopSettings whole = plan.openLoop();
        if (whole != null) {
            // the rates of the merged timeline, as one machine computes its own: (n - 1) / (last - first) over the
            // whole schedule and over every measured send; a sum of each worker's own rate over its own span
            // overstated both (160 arrivals on 2 workers: 16.50 req/s against 16.41), and a lost worker's
            // would go on counting after it left
            double scheduledRate = whole.schedule().measuredRatePerSecond();
            List<ScheduledRecord> measuredSends = timeline.stream().filter(r -> !r.warmup()).toList();
            double achievedRate = ScheduledRecord.perSecondFirstToLast(measuredSends,
                    ScheduledRecord::actualSendOffsetNanos);
            open = new OpenLoopResult(records, warmupRecords, timeline, windowStartEpochMillis, endEpochMillis,
                    duration, measureStart, sent, timedOut, stopped, whole, warmupArrivals, measuredArrivals,
                    arrivalsNotSent,
                    maxBacklog, scheduledRate, achievedRate, client, connects, sharedStartNanos)
                    .withUnsentOfLostWorkers(unsentOfLost.build().toArray());
        }
        return new MergedRun(records, timeline, windowStartEpochMillis, endEpochMillis, duration, sent, timedOut,
                stopped, reports, open, warmupRecords, measureStart, client, connects, sharedStartNanos);
    }

    /**
     * Field by field the worst of the workers' clients (the longest lag, the busiest thread and process, the most
     * GC, the noisiest idle baseline), so the client-bottleneck warning fires when any worker was overloaded;
     * null when none reported.
     */
    static ClientOverhead worst(List<ClientOverhead> clients) {
        if (clients.isEmpty()) return null;
        ClientOverhead w = clients.get(0);
        for (ClientOverhead c : clients.subList(1, clients.size())) {
            w = new ClientOverhead(Math.max(w.wallNanos(), c.wallNanos()), Math.max(w.ioThreads(), c.ioThreads()),
                    Math.min(w.availableProcessors(), c.availableProcessors()), w.lagSamples() + c.lagSamples(),
                    Math.max(w.lagP50Nanos(), c.lagP50Nanos()), Math.max(w.lagP99Nanos(), c.lagP99Nanos()),
                    Math.max(w.lagMaxNanos(), c.lagMaxNanos()), maxKnown(w.ioBusyShareMean(), c.ioBusyShareMean()),
                    maxKnown(w.ioBusyShareMax(), c.ioBusyShareMax()), Math.max(w.gcPauseNanos(), c.gcPauseNanos()),
                    Math.max(w.gcCount(), c.gcCount()), maxKnown(w.processCpuShare(), c.processCpuShare()),
                    Math.max(w.idleLagP99Nanos(), c.idleLagP99Nanos()),
                    maxKnown(w.ioRunnableShareMax(), c.ioRunnableShareMax()));
        }
        return w;
    }

    /** The larger, NaN (unknown) only when both are. */
    private static double maxKnown(double a, double b) {
        if (Double.isNaN(a)) return b;
        if (Double.isNaN(b)) return a;
        return Math.max(a, b);
    }

    /** What became of the requests a lost worker had sent: those whose record never reached the coordinator. */
    static String lostWords(int lost) {
        if (lost == 0) return "every request it had sent has its record at the coordinator (none lost)";
        return lost == 1 ? "1 request it had sent without its record reaching the coordinator is recorded as lost"
                : lost + " requests it had sent without their records reaching the coordinator are recorded as lost";
    }

    /**
     * A LOST record for each request a worker that left said it sent and whose record never came: it started when
     * it was sent (its worker's wall clock, its place on the shared timeline), its fate unknown.
     */
    static List<ScheduledRecord> lostRecords(String workerId, Collection<SentRequests.Sent> sent, String reason) {
        Failure failure = new Failure(FailureKind.LOST, -1, "lost: " + reason + " after sending this request, "
                + "before its record reached the coordinator");
        List<ScheduledRecord> lost = new ArrayList<>(sent.size());
        for (SentRequests.Sent s : sent) {
            RequestRecord record = new RequestRecord(s.promptIndex(), s.clientRequestId(), null, s.sendEpochMicros(),
                    RequestRecord.NEVER, RequestRecord.NEVER, RequestRecord.NEVER, 0, null, "", s.inputTokens(),
                    s.maxTokens(), -1, null,
                    null, null, failure).withWorkerId(workerId);
            lost.add(new ScheduledRecord(record, -1, s.sendOffsetNanos(), s.sendOffsetNanos(), false));
        }
        return lost;
    }

    private static ScheduledRecord shifted(ScheduledRecord r, long shiftNanos) {
        return new ScheduledRecord(r.record(), r.arrivalIndex(), r.intendedSendOffsetNanos() + shiftNanos,
                r.actualSendOffsetNanos() + shiftNanos, r.warmup());
    }

    private static long endOffset(ScheduledRecord r) {
        return r.actualSendOffsetNanos() + Math.max(0, r.record().e2eNanos());
    }
}
