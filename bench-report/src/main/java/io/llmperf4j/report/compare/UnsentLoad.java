package io.llmperf4j.report.compare;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The planned requests a distributed run never sent because a load worker left the cluster mid-run (its summary's
 * {@code distributed.workers[].requests_not_sent} of the workers with a {@code left} reason). They are not records
 * and not failures, so nothing else in a comparison shows them: the run offered less load than was asked, and its
 * throughput is of the load it sent. A drop in throughput of up to that share is the unsent load, not the server, nor
 * the requests lost with the worker (which were sent).
 *
 * @param notSent the requests never sent by the workers that left
 * @param planned the run's planned requests (every worker's assigned requests)
 * @param workers the ids of the workers that left with some unsent
 */
public record UnsentLoad(int notSent, int planned, List<String> workers) {

    public UnsentLoad {
        workers = List.copyOf(workers);
    }

    /** What a run's summary says; empty when no worker left with requests unsent (or it is no distributed run). */
    public static Optional<UnsentLoad> of(JsonNode summary) {
        int notSent = 0;
        int assigned = 0;
        List<String> left = new ArrayList<>();
        for (JsonNode w : summary.path("distributed").path("workers")) {
            assigned += w.path("requests_assigned").asInt();
            int n = w.path("requests_not_sent").asInt();
            if (w.path("left").isTextual() && n > 0) {
                notSent += n;
                left.add(w.path("id").asText());
            }
        }
        if (notSent == 0) return Optional.empty();
        int planned = assigned > 0 ? assigned : summary.path("settings").path("max_num_completed_requests").asInt();
        return Optional.of(new UnsentLoad(notSent, Math.max(planned, notSent), left));
    }

    /** The unsent part of the planned load, 0 to 1. */
    public double share() {
        return planned == 0 ? 0 : (double) notSent / planned;
    }

    /**
     * "70 of its 240 planned requests (29.2 %) were never sent: load worker 127.0.0.1:5822 left the cluster mid-run",
     * without a subject.
     */
    public String words() {
        return String.format(Locale.ROOT, "%d of its %d planned requests (%.1f %%) were never sent: load worker%s %s "
                        + "left the cluster mid-run", notSent, planned, 100 * share(), workers.size() == 1 ? "" : "s",
                String.join(", ", workers));
    }
}
