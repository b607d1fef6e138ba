package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A run's results folder as tests read it: its requests CSV and its llmperf4j summary, whatever the base name. */
final class RunFolder {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RunFolder() {
    }

    /** The rows of the folder's {@code *_requests.csv}. */
    static List<CSVRecord> csv(Path dir) throws IOException {
        try (Reader r = Files.newBufferedReader(file(dir, "_requests.csv"))) {
            return new ArrayList<>(CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(r)
                    .getRecords());
        }
    }

    /** The folder's {@code *_llmperf4j_summary.json}. */
    static JsonNode summary(Path dir) throws IOException {
        return JSON.readTree(file(dir, "_llmperf4j_summary.json").toFile());
    }

    /** The folder's {@code *_sweep.json}. */
    static JsonNode sweep(Path dir) throws IOException {
        return JSON.readTree(file(dir, "_sweep.json").toFile());
    }

    /** The message of {@code summary}'s warning with {@code code}, or null when it has none. */
    static String warning(JsonNode summary, String code) {
        for (JsonNode w : summary.path("warnings")) {
            if (code.equals(w.path("code").asText())) return w.path("message").asText();
        }
        return null;
    }

    /**
     * The folder's {@code *_report.html} as the run wrote it, then as {@code llmperf4j report} rebuilds it from the
     * folder's files (the written one deleted first): a page's words must be the same either way.
     */
    static List<String> writtenAndRebuiltPages(Path dir) throws IOException {
        Path page = file(dir, "_report.html");
        String written = Files.readString(page);
        Files.delete(page);
        CliRun report = CliRun.of(Map.of(), "report", dir.toString());
        assertEquals(0, report.exitCode(), report::toString);
        return List.of(written, Files.readString(page));
    }

    /** The folder's first file whose name ends with {@code suffix} (e.g. {@code _sweep.csv}). */
    static Path file(Path dir, String suffix) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(suffix)).findFirst().orElseThrow();
        }
    }
}
