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
 * The compared runs a signal cut short, read from their summaries' {@code run.stopped_by} (a run, or each level of a
 * sweep): such a run's latencies leave out its cancelled requests, the ones that had run longest, so its percentiles
 * read low and a delta against a complete run is partly the cut. compare still compares them, but says so first, as
 * it lists differing settings ({@link SettingsDifferences}). Iterations keep no summary and give no lines; an
 * unreadable summary gives none either.
 */
public final class StoppedRuns {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUMMARY_SUFFIX = "_llmperf4j_summary.json";

    private StoppedRuns() {
    }

    /**
     * One line per side (or sweep level) a signal stopped, e.g. "the candidate (r/sigint2) was stopped by SIGINT
     * after 17 successful requests with 4 cancelled: ..."; empty when neither was.
     */
    public static List<String> between(Path baseline, Path candidate) {
        List<String> lines = new ArrayList<>();
        lines.addAll(of("baseline", baseline));
        lines.addAll(of("candidate", candidate));
        return lines;
    }

    private static List<String> of(String side, Path path) {
        List<String> lines = new ArrayList<>();
        try {
            ResultsFolder folder = FolderComparison.iterationsOfSweep(ResultsFolder.detect(path));
            switch (folder.kind()) {
                case RUN -> summaryIn(folder.dir()).flatMap(StoppedRuns::stop)
                        .ifPresent(stop -> lines.add(line("the " + side + " (" + path + ")", stop)));
                case SWEEP -> {
                    for (SweepFiles.Level l : SweepFiles.read(folder.file()).levels()) {
                        if (l.resultsDir() == null || l.resultsDir().isEmpty()) continue;
                        summaryIn(folder.dir().resolve(l.resultsDir())).flatMap(StoppedRuns::stop).ifPresent(stop ->
                                lines.add(line("the " + side + "'s level " + l.label() + " (" + path + ")", stop)));
                    }
                }
                case ITERATIONS, COMPARISON -> {
                    // no summary of their own to say it
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return lines;
    }

    private record Stop(String signal, int succeeded, int cancelled) {
    }

    private static Optional<Stop> stop(JsonNode summary) {
        JsonNode run = summary.path("run");
        JsonNode signal = run.path("stopped_by");
        if (!signal.isTextual()) return Optional.empty();
        return Optional.of(new Stop(signal.asText(), run.path("requests_succeeded").asInt(),
                summary.path("errors").path("by_kind").path("CANCELLED").asInt()));
    }

    private static String line(String who, Stop stop) {
        return who + " was stopped by " + stop.signal() + " after " + stop.succeeded() + " successful request"
                + (stop.succeeded() == 1 ? "" : "s") + " with " + stop.cancelled() + " cancelled: its latencies "
                + "leave out the cancelled requests, the ones that had run longest, so they read lower than a run "
                + "to its end would; compare runs that ran to their end";
    }

    private static Optional<JsonNode> summaryIn(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return Optional.empty();
        Path file;
        try (Stream<Path> list = Files.list(dir)) {
            file = list.filter(p -> p.getFileName().toString().endsWith(SUMMARY_SUFFIX)).sorted().findFirst()
                    .orElse(null);
        }
        return file == null ? Optional.empty() : Optional.of(JSON.readTree(file.toFile()));
    }
}
