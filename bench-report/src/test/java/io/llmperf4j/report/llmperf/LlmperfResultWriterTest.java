package io.llmperf4j.report.llmperf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import io.llmperf4j.report.testutil.TestResources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LlmperfResultWriterTest {

    @TempDir
    Path tmp;

    @Test
    void writesTheThreeFilesIntoANewNestedDirectory() throws IOException {
        Path dir = tmp.resolve("a/b/results");
        LlmperfResultFiles files = LlmperfResultWriter.write(SampleRuns.mixed(), dir);

        assertEquals(dir.resolve("meta-llama-Llama-2-7b-chat-hf_550_150_summary.json"), files.summaryJson());
        assertEquals(dir.resolve("meta-llama-Llama-2-7b-chat-hf_550_150_individual_responses.json"),
                files.individualResponsesJson());
        assertEquals(dir.resolve("meta-llama-Llama-2-7b-chat-hf_550_150_requests.csv"), files.requestsCsv());
        assertEquals(TestResources.text("golden/mixed_summary.json"), read(files.summaryJson()));
        assertEquals(TestResources.text("golden/mixed_individual_responses.json"), read(files.individualResponsesJson()));
        assertEquals(8, read(files.requestsCsv()).split("\r\n").length); // header + 7 requests
    }

    /** Failures are absent from the statistics but present, in completion order, in the individual file. */
    @Test
    void individualFileKeepsFailuresInCompletionOrder() throws IOException {
        LlmperfResultFiles files = LlmperfResultWriter.write(SampleRuns.mixed(), tmp);
        List<Map<String, Object>> entries = TestResources.PYTHON_LIKE_JSON.readValue(
                files.individualResponsesJson().toFile(), new TypeReference<List<Map<String, Object>>>() { });
        assertEquals(7, entries.size());
        assertEquals(500, entries.get(2).get("error_code"));
        assertEquals("Internal Server Error", entries.get(2).get("error_msg"));
        assertEquals(-1, entries.get(4).get("error_code"));
        assertNull(entries.get(0).get("error_code"));
        assertTrue(entries.get(0).containsKey("error_code"));
    }

    @Test
    void noSuccessRunStillWritesValidFiles() throws IOException {
        LlmperfResultFiles files = LlmperfResultWriter.write(LlmperfSummaryTest.allFailedRun(), tmp);
        Map<String, Object> summary = TestResources.PYTHON_LIKE_JSON.readValue(files.summaryJson().toFile(),
                new TypeReference<LinkedHashMap<String, Object>>() { });
        assertEquals(0, summary.get("results_num_completed_requests"));
        assertEquals(Double.NaN, summary.get("results_ttft_s_mean"));
        assertEquals(TestResources.text("golden/allfailed_individual_responses.json"),
                read(files.individualResponsesJson()));
    }

    @Test
    void existingFileInPlaceOfTheDirectoryIsRefused() throws IOException {
        Path notADirectory = Files.writeString(tmp.resolve("results"), "x");
        assertThrows(NotDirectoryException.class, () -> LlmperfResultWriter.write(SampleRuns.mixed(), notADirectory));
    }

    @Test
    void rewritingReplacesEarlierFiles() throws IOException {
        LlmperfResultWriter.write(SampleRuns.mixed(), tmp);
        LlmperfResultFiles again = LlmperfResultWriter.write(SampleRuns.mixed(), tmp);
        assertTrue(read(again.summaryJson()).endsWith("}"));
        assertEquals(TestResources.text("golden/mixed_summary.json"), read(again.summaryJson()));
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
