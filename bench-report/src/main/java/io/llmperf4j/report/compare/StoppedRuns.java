package io.llmperf4j.report.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.report.output.ResultsFolder;
import io.llmperf4j.report.output.SweepFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What each compared run's summary says about how it ended and how it was measured, read from its summary (a run, or
 * each level of a sweep): a run a signal cut short ({@code run.stopped_by}), a run that ended at its time limit
 * ({@code run.timed_out} with fewer requests recorded than planned), a run with no summary at all (its records
 * alone: a run killed before it wrote its files, SIGKILL or a crash, or a copy of its journal), and a run whose
 * client was its own bottleneck (the summary's CLIENT_BOTTLENECK warning), and a distributed run that lost a load
 * worker with some of its planned requests never sent ({@link UnsentLoad}). The first, the third and the last are
 * <em>incomplete</em>: a stopped run's latencies leave out its cancelled requests, the ones that had run longest, and
 * is not the run that was asked for; a run with load never sent offered less than was asked; a run without a summary may be one, and its settings cannot be checked. A time
 * limit is llmperf's way of setting a run's length ({@code --timeout}), so ending there is said, not refused. compare
 * still compares them but says so first, as it lists differing settings ({@link SettingsDifferences}); a gate
 * ({@code --fail-if}) refuses an incomplete side unless told to judge it anyway. Iterations and comparisons of models
 * keep no summary of their own and give no notes; an unreadable summary gives none either.
 */
public final class StoppedRuns {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUMMARY_SUFFIX = "_llmperf4j_summary.json";
    private static final String CLIENT_BOTTLENECK = "CLIENT_BOTTLENECK";

    private StoppedRuns() {
    }

    /**
     * One note on a compared side.
     *
     * @param text       the line, without a prefix
     * @param incomplete true when the side did not run to its end, or cannot show that it did
     */
    public record Note(String text, boolean incomplete) {
    }

    /** The notes of both sides, baseline first; empty when both ran to their end with nothing to say. */
    public static List<Note> notes(Path baseline, Path candidate) {
        List<Note> notes = new ArrayList<>();
        notes.addAll(of("baseline", baseline));
        notes.addAll(of("candidate", candidate));
        return notes;
    }

    private static List<Note> of(String side, Path path) {
        List<Note> notes = new ArrayList<>();
        try {
            ResultsFolder folder = FolderComparison.iterationsOfSweep(ResultsFolder.detect(path));
            switch (folder.kind()) {
                case RUN -> notes.addAll(ofRun("the " + side + " (" + path + ")", folder.dir()));
                case SWEEP -> {
                    SweepFiles.Document sweep = SweepFiles.read(folder.file());
                    if (sweep.stopped() && sweep.levels().size() < sweep.plannedLevels().size()) {
                        // stopped between levels: every level that ran is whole, but the sweep is not (QA: exit 0)
                        notes.add(new Note("the " + side + " (" + path + ") is a sweep stopped before its last level: "
                                + sweep.levels().size() + " of its " + sweep.plannedLevels().size() + " planned levels "
                                + "ran; the levels it never ran are compared with nothing", true));
                    }
                    for (SweepFiles.Level l : sweep.levels()) {
                        if (l.resultsDir() == null || l.resultsDir().isEmpty()) continue;
                        notes.addAll(ofRun("the " + side + "'s level " + l.label() + " (" + path + ")",
                                folder.dir().resolve(l.resultsDir())));
                    }
                }
                case ITERATIONS, COMPARISON -> {
                    // no summary of their own to say it
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return notes;
    }

    private static List<Note> ofRun(String who, Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return List.of();
        Optional<JsonNode> found = summaryIn(dir);
        if (found.isEmpty()) {
            return List.of(new Note(who + " has no summary, only its records (a run killed before it wrote its files, "
                    + "by SIGKILL or a crash, or a copy of its journal alone): whether it ran to its end is unknown, "
                    + "so its latencies may leave out the requests that had run longest, and its settings, planned "
                    + "request count and warnings could not be checked", true));
        }
        JsonNode summary = found.get();
        List<Note> notes = new ArrayList<>();
        JsonNode run = summary.path("run");
        int recorded = run.path("requests_recorded").asInt();
        int succeeded = run.path("requests_succeeded").asInt();
        JsonNode plannedNode = summary.path("settings").path("max_num_completed_requests");
        int planned = plannedNode.canConvertToInt() ? plannedNode.asInt() : 0;
        String ofPlanned = planned > 0 ? " of " + planned + " planned" : "";
        JsonNode signal = run.path("stopped_by");
        if (signal.isTextual()) {
            int cancelled = summary.path("errors").path("by_kind").path("CANCELLED").asInt();
            notes.add(new Note(who + " was stopped by " + signal.asText() + " after " + recorded + ofPlanned
                    + " request" + (recorded == 1 && planned == 0 ? "" : "s") + " (" + succeeded + " successful, "
                    + cancelled + " cancelled): its latencies leave out the cancelled requests, the ones that had run "
                    + "longest, so they read lower than a run to its end would, and its cancelled requests count in its "
                    + "error rate; compare runs that ran to their end", true));
        } else if (run.path("timed_out").asBoolean() && planned > 0 && recorded < planned) {
            // llmperf's --timeout is how long a run lasts: ending there is a run's designed end, told, not refused
            notes.add(new Note(who + " ended at its time limit (--timeout) after " + recorded + ofPlanned
                    + " requests: its latencies leave out the requests still in flight then, so they read lower than "
                    + "a run of its planned requests would", false));
        }
        UnsentLoad.of(summary).ifPresent(u -> notes.add(new Note(who + " did not send all its planned load: " + u.words()
                + ", so it offered " + String.format(java.util.Locale.ROOT, "%.1f", 100 * (1 - u.share()))
                + " % of the load that was asked (those requests are not records, nor failures): its throughput is of "
                + "the load it sent, and it is not the run that was asked for; compare runs whose workers all "
                + "finished", true)));
        for (JsonNode warning : summary.path("warnings")) {
            if (CLIENT_BOTTLENECK.equals(warning.path("code").asText())) {
                notes.add(new Note(who + " warned that its client was its own bottleneck, so its latencies include "
                        + "the client's delays: " + warning.path("message").asText(), false));
            }
        }
        return notes;
    }

    /** The run summary in {@code dir}, if it holds one. */
    static Optional<JsonNode> summaryIn(Path dir) throws IOException {
        Path file;
        try (Stream<Path> list = Files.list(dir)) {
            file = list.filter(p -> p.getFileName().toString().endsWith(SUMMARY_SUFFIX)).sorted().findFirst()
                    .orElse(null);
        }
        return file == null ? Optional.empty() : Optional.of(JSON.readTree(file.toFile()));
    }
}
