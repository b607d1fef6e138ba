package io.llmperf4j.run;

import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.model.RequestRecord;

import java.util.Arrays;
import java.util.List;

/**
 * A level's concurrency as llmperf's {@code num_concurrent_requests} means it, the requests in flight at once: a
 * closed loop's concurrency; an open loop's --max-concurrency cap; an uncapped open loop's peak, measured from its
 * records (each in flight from its send to its end), so the key is never 0.
 */
final class PeakInFlight {
    private PeakInFlight() {
    }

    /** The requests in flight at once for {@code level}; {@code fallback} for a level of another kind. */
    static int concurrency(LoadSettings level, List<RequestRecord> records, int fallback) {
        if (level instanceof ClosedLoopSettings c) return c.concurrency();
        if (level instanceof OpenLoopSettings o) return o.maxConcurrency().orElseGet(() -> of(records));
        return fallback;
    }

    /** How the console names it: "concurrency 8", "max concurrency 8", "unlimited concurrency (peak 37 in flight)". */
    static String label(LoadSettings level, int concurrency) {
        if (level instanceof OpenLoopSettings o) {
            return o.maxConcurrency().isPresent() ? "max concurrency " + concurrency
                    : "unlimited concurrency (peak " + concurrency + " in flight)";
        }
        return "concurrency " + concurrency;
    }

    /**
     * The most records whose [send, end] intervals overlap; an end and a send at the same instant do not. A record
     * without an end is left out: a distributed run's LOST request (sent by a worker that left before its record
     * reached the coordinator: its send is known, its end is not, e2e -1) was in flight from its send for a time
     * nobody knows, so the peak counts only the requests whose whole interval is known, and may be low by the LOST
     * ones; with an end before its send it would also break the sweep below, whose ends must each follow their own
     * send.
     */
    static int of(List<RequestRecord> records) {
        List<RequestRecord> sent = records.stream().filter(r -> r.e2eNanos() > 0).toList();
        long[] starts = new long[sent.size()];
        long[] ends = new long[sent.size()];
        for (int i = 0; i < sent.size(); i++) {
            RequestRecord r = sent.get(i);
            starts[i] = r.startEpochMicros() * 1000;
            ends[i] = starts[i] + r.e2eNanos();
        }
        Arrays.sort(starts);
        Arrays.sort(ends);
        int peak = 0;
        int inFlight = 0;
        for (int s = 0, e = 0; s < starts.length; ) {
            if (starts[s] < ends[e]) {
                inFlight++;
                s++;
                peak = Math.max(peak, inFlight);
            } else {
                inFlight--;
                e++;
            }
        }
        return peak;
    }
}
