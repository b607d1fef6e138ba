package io.llmperf4j.engine.load;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Whether a capped open loop's send lag was the cap's: an arrival due while {@code cap} requests were in flight
 * waited for a slot (and one due while an earlier arrival waited queued behind it, the cap full all the same), so
 * its lag is the wait for a slot, not the client's pacer. Read from the timeline alone (each request in flight from
 * its actual send to its end), as vLLM's bench keeps a request's wait at its cap apart as client queue time; the
 * field's open-loop tools (AIPerf, GuideLLM, vLLM) gate each arrival on the cap the same way, without catch-up.
 *
 * @param cap   the --max-concurrency cap
 * @param sends every request's actual send (warmup included: it holds slots too), sorted
 * @param ends  every request's end, sorted
 */
public record CapWaits(int cap, long[] sends, long[] ends) {

    public CapWaits {
        if (cap < 1) throw new IllegalArgumentException("cap: " + cap);
    }

    /** The waits of a level capped at {@code cap} whose requests, warmup included, are {@code timeline}. */
    public static CapWaits of(int cap, Collection<ScheduledRecord> timeline) {
        long[] sends = timeline.stream().filter(r -> r.arrivalIndex() >= 0)
                .mapToLong(ScheduledRecord::actualSendOffsetNanos).sorted().toArray();
        long[] ends = timeline.stream().filter(r -> r.arrivalIndex() >= 0)
                .mapToLong(ScheduledRecord::endOffsetNanos).sorted().toArray();
        return new CapWaits(cap, sends, ends);
    }

    /** Requests in flight at {@code instant}: sent at or before it, not ended by it. */
    public int inFlightAt(long instant) {
        return atOrBefore(sends, instant) - atOrBefore(ends, instant);
    }

    /** Whether the arrival {@code r} found the cap full when it was due. */
    public boolean foundFull(ScheduledRecord r) {
        return inFlightAt(r.intendedSendOffsetNanos()) >= cap;
    }

    /**
     * Whether more than half of the send lag of {@code arrivals} was lag of arrivals that found the cap full when
     * they were due; false without lag.
     */
    public boolean heldMostOfTheLag(List<ScheduledRecord> arrivals) {
        long total = 0;
        long atCap = 0;
        for (ScheduledRecord r : arrivals) {
            long lag = Math.max(0, r.sendLagNanos());
            total += lag;
            if (lag > 0 && foundFull(r)) atCap += lag;
        }
        return total > 0 && 2 * atCap > total;
    }

    /**
     * How much slower a request sent with the cap full may end than one sent with at most half of it in flight
     * before the service is taken to have slowed with the load (judgement: a batching server's latency grows somewhat
     * with its batch below its limit; a queue in the service grows it by the queue's length).
     */
    static final double SLOWED_AT_THE_CAP = 1.5;

    /**
     * Whether the service may have been the limit at the cap, not the cap: the successes sent with the cap full
     * ended {@link #SLOWED_AT_THE_CAP} times slower (E2E p50 from their actual send) than those sent with at most half
     * of it in flight, or there are fewer than 3 of either to tell (no sign that the service had room). A service
     * with room serves N in flight as fast as one; a service saturated behind a larger cap queues them, and each
     * waits its queue's length. A cap of one is never the service's (one at a time, the service's latency alone).
     */
    public boolean serviceMayHaveSlowed(List<ScheduledRecord> successes) {
        if (cap == 1) return false;
        int light = cap / 2;
        List<Long> few = new java.util.ArrayList<>();
        List<Long> full = new java.util.ArrayList<>();
        for (ScheduledRecord r : successes) {
            if (r.arrivalIndex() < 0) continue;
            int load = inFlightAt(r.actualSendOffsetNanos()); // itself included
            if (load <= light) few.add(r.record().e2eNanos());
            else if (load >= cap) full.add(r.record().e2eNanos());
        }
        if (few.size() < 3 || full.size() < 3) return true;
        return median(full) > SLOWED_AT_THE_CAP * median(few);
    }

    private static double median(List<Long> values) {
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    private static int atOrBefore(long[] sorted, long instant) {
        int i = Arrays.binarySearch(sorted, instant);
        if (i < 0) return -i - 1;
        while (i + 1 < sorted.length && sorted[i + 1] == instant) i++;
        return i + 1;
    }
}
