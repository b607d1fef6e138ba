package io.llmperf4j.run;

import io.llmperf4j.distributed.WorkloadSplit;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.summary.Plural;
import io.llmperf4j.report.summary.SummaryDocument;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the load workers that left a cluster mid-run took from a level, for stdout and the failure gate: the requests
 * they never sent are in no record (llmperf's fields stay as they are), so without this a closed loop that lost half
 * its slots read "concurrency 8, 160 requests" and passed --max-error-rate with 80 of 240 never sent.
 */
final class LostWorkers {
    private LostWorkers() {
    }

    /** The requests (or arrivals) the workers that left never sent; 0 without a cluster or a lost worker. */
    static int neverSent(SummaryDocument.DistributedJson workers) {
        if (workers == null) return 0;
        return workers.workers().stream().filter(w -> w.left() != null).mapToInt(w -> w.requestsNotSent()).sum();
    }

    /**
     * " (4 from 4.1 s: worker 127.0.0.1:5762 lost)": a closed loop's concurrency after its lost workers' slots went,
     * from the last send of the last of them (seconds from the level's first send); empty when none was lost.
     */
    static String concurrencyAfter(SummaryDocument.DistributedJson workers, int concurrency,
                                   List<RequestRecord> records) {
        if (workers == null) return "";
        int[] slots = WorkloadSplit.evenly(concurrency, workers.workers().size()); // as the coordinator dealt them
        int left = concurrency;
        List<String> ids = new ArrayList<>();
        long lastSend = Long.MIN_VALUE;
        for (int i = 0; i < workers.workers().size(); i++) {
            SummaryDocument.WorkerJson w = workers.workers().get(i);
            if (w.left() == null) continue;
            left -= slots[i];
            ids.add(w.id());
            for (RequestRecord r : records) {
                if (w.id().equals(r.workerId())) lastSend = Math.max(lastSend, r.startEpochMicros());
            }
        }
        if (ids.isEmpty()) return "";
        long firstSend = records.stream().mapToLong(RequestRecord::startEpochMicros).min().orElse(lastSend);
        String when = lastSend == Long.MIN_VALUE ? ""
                : String.format(Locale.ROOT, " from %.1f s", (lastSend - firstSend) / 1e6);
        return " (" + left + when + ": " + (ids.size() == 1 ? "worker " : "workers ") + String.join(", ", ids)
                + " lost)";
    }

    /**
     * "Not sent: 80 of 240 requests: load worker 127.0.0.1:5762 left the cluster mid-run before it sent them
     * (--max-error-rate counts them, and the 4 LOST, as failed)"; empty when none was lost or all were sent.
     */
    static Optional<String> notSentLine(SummaryDocument.DistributedJson workers, int recorded, String what) {
        int never = neverSent(workers);
        if (never == 0) return Optional.empty();
        List<String> ids = workers.workers().stream().filter(w -> w.left() != null && w.requestsNotSent() > 0)
                .map(SummaryDocument.WorkerJson::id).toList();
        int lost = workers.workers().stream().mapToInt(SummaryDocument.WorkerJson::requestsLost).sum();
        return Optional.of("Not sent: " + never + " of " + Plural.of(recorded + never, what) + ": load "
                + (ids.size() == 1 ? "worker " + ids.get(0) + " left" : "workers " + String.join(", ", ids) + " left")
                + " the cluster mid-run before sending them (--max-error-rate counts them"
                + (lost > 0 ? ", and the " + lost + " LOST," : "") + " as failed)");
    }

    /**
     * A sweep level's words on its cluster, for its table row and its "done" line: "worker 127.0.0.1:5762 lost" on
     * the level where it left, "without worker 127.0.0.1:5762" on a later level (which ran on the others); empty
     * when no worker was lost up to this level. {@code levels}: the sweep's levels so far, this one last.
     */
    static String levelFlag(List<SummaryDocument.DistributedJson> levels) {
        if (levels.isEmpty()) return "";
        List<String> here = leftIds(levels.get(levels.size() - 1));
        if (!here.isEmpty()) return workers(here) + " lost";
        List<String> before = new ArrayList<>();
        for (SummaryDocument.DistributedJson w : levels.subList(0, levels.size() - 1)) before.addAll(leftIds(w));
        return before.isEmpty() ? "" : "without " + workers(before);
    }

    /**
     * The sweep's lines after its table, one per level that lost a worker: "lost: concurrency 3: worker
     * 127.0.0.1:5762 left the cluster mid-run (concurrency 2 from 1.2 s); not sent: 5 of 30 requests
     * (--max-error-rate counts them as failed); the levels after it ran on the other workers".
     *
     * @param concurrencyAfter each level's {@link #concurrencyAfter} (empty for an open loop)
     * @param recorded         each level's records
     */
    static List<String> sweepLines(List<String> labels, List<SummaryDocument.DistributedJson> levels,
                                   List<String> concurrencyAfter, List<Integer> recorded, String what) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < levels.size(); i++) {
            List<String> ids = leftIds(levels.get(i));
            if (ids.isEmpty()) continue;
            int never = neverSent(levels.get(i));
            int lost = levels.get(i).workers().stream().mapToInt(SummaryDocument.WorkerJson::requestsLost).sum();
            String after = concurrencyAfter.get(i); // " (2 from 1.2 s: worker X lost)"
            String fell = after.isEmpty() ? "" : " (concurrency " + after.substring(2, after.indexOf(':')) + ")";
            lines.add("lost: " + labels.get(i) + ": " + workers(ids) + " left the cluster mid-run" + fell
                    + (never == 0 ? "" : "; not sent: " + never + " of " + Plural.of(recorded.get(i) + never, what)
                    + " (--max-error-rate counts them" + (lost > 0 ? ", and the " + lost + " LOST," : "")
                    + " as failed)")
                    + (i < levels.size() - 1 ? "; the levels after it ran on the other workers" : ""));
        }
        return lines;
    }

    private static String workers(List<String> ids) {
        return (ids.size() == 1 ? "worker " : "workers ") + String.join(", ", ids);
    }

    private static List<String> leftIds(SummaryDocument.DistributedJson workers) {
        if (workers == null) return List.of();
        return workers.workers().stream().filter(w -> w.left() != null).map(SummaryDocument.WorkerJson::id).toList();
    }
}
