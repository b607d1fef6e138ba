package io.llmperf4j.report.html;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A run folder that is a level of a capacity search, as the search's {@code <base>_search.json} beside it says: the
 * search chose its limit (not {@code --max-num-completed-requests}) and ended it, early on its verdict or at its
 * limit, cancelling the requests then in flight. The level's page says so; a folder the search has not written its
 * file beside yet (the level's page as the level ends) has none, and the search rebuilds its levels' pages after.
 *
 * @param index    1-based, in the search's run order
 * @param phase    "grow", "bisect" or "repeat"
 * @param level    "concurrency 4", "rate 7 req/s"
 * @param stop     "resolved", "limit", "ended" or "stopped"
 * @param passed   the level's verdict
 * @param samples  the requests the verdict judged
 * @param levelMax the search's limit of a level ("60 requests", "20 s")
 */
record SearchLevel(int index, String phase, String level, String stop, boolean passed, int samples,
                   String levelMax) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The level of {@code levelDir} in the search beside it, or null when it is none (or the file is unreadable). */
    static SearchLevel of(Path levelDir) {
        if (levelDir == null || levelDir.getParent() == null) return null;
        Path parent = levelDir.getParent();
        String name = levelDir.getFileName().toString();
        List<Path> files;
        try (Stream<Path> list = Files.list(parent)) {
            files = list.filter(f -> f.getFileName().toString().endsWith("_search.json")).toList();
        } catch (IOException e) {
            return null;
        }
        for (Path file : files) {
            try {
                JsonNode doc = JSON.readTree(file.toFile());
                for (JsonNode l : doc.path("levels")) {
                    if (!name.equals(l.path("results_dir").asText(null))) continue;
                    String unit = doc.path("unit").asText("");
                    return new SearchLevel(l.path("index").asInt(), l.path("phase").asText(""),
                            doc.path("search").asText("") + " " + number(l.path("load").asDouble())
                                    + (unit.isEmpty() || unit.equals("concurrency") ? "" : " " + unit),
                            l.path("stop").asText(""),
                            l.path("passed").asBoolean(), l.path("samples").asInt(),
                            doc.path("settings").path("level_max").asText(""));
                }
            } catch (IOException | RuntimeException e) {
                // not a search's file this page can read: no search context
            }
        }
        return null;
    }

    /** The search ended the level itself (on its verdict, or at its limit), cancelling the requests then in flight. */
    boolean endedBySearch() {
        return stop.equals("resolved") || stop.equals("limit");
    }

    /** "the search ended it early on its verdict", "it reached the search's level limit (60 requests)". */
    String howItEnded() {
        return switch (stop) {
            case "resolved" -> "the search ended it early on its verdict (" + (passed ? "pass" : "fail") + ", "
                    + samples + " requests judged)";
            case "limit" -> "it reached the search's level limit (" + levelMax + "), judged "
                    + (passed ? "pass" : "fail") + " on " + samples + " requests";
            case "stopped" -> "a stop (Ctrl-C or SIGTERM) ended it";
            default -> "it ran out of requests or time";
        };
    }

    /** "Level 3 (grow) of a capacity search, concurrency 4: the search ended it early on its verdict (...)". */
    String sentence() {
        return "Level " + index + " (" + phase + ") of a capacity search, " + level + ": " + howItEnded()
                + (endedBySearch() ? "; requests still in flight then were cancelled by the search, not failed by "
                + "the server" : "") + ".";
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }
}
