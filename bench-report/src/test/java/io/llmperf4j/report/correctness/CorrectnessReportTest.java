package io.llmperf4j.report.correctness;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.testutil.TestResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Against golden files written by llmperf's own checking and printing code (generate_correctness_golden.py). */
class CorrectnessReportTest {
    private static final long TIMESTAMP = 1_700_000_000L;

    static CorrectnessReport sample() {
        Map<String, Object> additional = new LinkedHashMap<>();
        additional.put("top_p", 0.9);
        additional.put("logit_bias", Map.of("50256", -100));
        CorrectnessSettings settings = new CorrectnessSettings("meta-llama/Llama-2-7b-chat-hf", 2, additional,
                "openai", Map.of("framework", "sim"));
        return new CorrectnessReport(settings, List.of(
                result(0, 1234, "one thousand, two hundred and thirty-four", "The number is 1,234.",
                        5_000_000, 20_000_000, 25_000_000, 4, null),
                result(1, 431, "four hundred and thirty-one", "I think\nit is 4,13",
                        7_000_000, 30_000_000, 31_000_000, 6, null),
                result(2, 10000, "ten thousand", "", -1, -1, 2_000_000, 0,
                        new Failure(FailureKind.HTTP_STATUS, 500, "Internal Server Error")),
                result(3, 0, "zero", "The num", 4_000_000, 9_000_000, 9_500_000, 3,
                        new Failure(FailureKind.CONNECTION_CLOSED, -1, "connection closed by peer")),
                result(4, 7, "seven", "7", 3_000_000, 3_000_000, 4_000_000, 3, null)));
    }

    private static CorrectnessResult result(int index, long n, String words, String text, long ttft, long last,
                                            long e2e, int events, Failure failure) {
        RequestRecord record = new RequestRecord(index, "req-" + index, "chatcmpl-" + index, 0, ttft, last, e2e,
                events, ttft < 0 ? new long[0] : new long[] {ttft, last}, text, 0, 0, -1, null, null,
                failure == null ? "stop" : null, failure);
        return new CorrectnessResult(record, n, "Convert the following sequence of words into a number: " + words
                + ".\nPrint the number first.");
    }

    @Test
    void countsAndRatesDivideByAllCompletedRequests() {
        CorrectnessReport report = sample();
        assertEquals(2, report.numberErrors());
        assertEquals(1, report.numMismatchedRequests());
        assertEquals(2, report.numPassed());
        assertEquals(5, report.numCompletedRequests());
        assertEquals(3, report.numNonErroredRequests());
        assertEquals(0.4, report.errorRate());
        assertEquals(0.2, report.mismatchRate());
    }

    @Test
    void printsWhatLlmperfPrints() {
        CorrectnessReport report = sample();
        assertEquals(TestResources.text("golden/correctness_console.txt"),
                report.renderDetails() + report.renderResults());
    }

    @Test
    void writesLlmperfsTwoFilesByteForByte(@TempDir Path tmp) throws IOException {
        Path dir = tmp.resolve("a/b");
        CorrectnessResultFiles files = CorrectnessResultWriter.write(sample(), dir, TIMESTAMP);
        assertEquals(dir.resolve("meta-llama-Llama-2-7b-chat-hf_correctness_summary.json"), files.summaryJson());
        assertEquals(dir.resolve("meta-llama-Llama-2-7b-chat-hf_correctness_individual_responses.json"),
                files.individualResponsesJson());
        assertEquals(TestResources.text("golden/correctness_summary.json"),
                Files.readString(files.summaryJson(), StandardCharsets.UTF_8));
        assertEquals(TestResources.text("golden/correctness_individual_responses.json"),
                Files.readString(files.individualResponsesJson(), StandardCharsets.UTF_8));
    }

    @Test
    void metadataOverwritesInPlaceAndEmptyParamsLeaveNoKey() {
        CorrectnessSettings settings = new CorrectnessSettings("gpt-3.5-turbo", 1, Map.of(), "openai",
                Map.of("model", "renamed"));
        Map<String, Object> summary = new CorrectnessReport(settings, List.of()).summaryJson(5);
        assertEquals(List.of("version", "name", "number_errors", "num_mismatched_requests", "error_rate",
                "mismatch_rate", "num_completed_requests", "num_non_errored_requests", "model",
                "num_concurrent_requests", "llm_api", "timestamp"), List.copyOf(summary.keySet()));
        assertEquals("gpt-3-5-turbo_correctness_summary", summary.get("name"));
        assertEquals("renamed", summary.get("model"));
        assertEquals(0.0, summary.get("error_rate"), "no completed request: 0.0 where llmperf divides by zero");
        assertEquals(0.0, summary.get("mismatch_rate"));
    }

    @Test
    void samplingParamsAreTemperatureZeroUpdatedWithTheAdditionalParams() {
        Map<String, Object> additional = new LinkedHashMap<>();
        additional.put("max_tokens", 20);
        additional.put("temperature", 0.5);
        CorrectnessSettings settings = new CorrectnessSettings("m", 1, additional, "openai", Map.of());
        assertEquals(List.of("temperature", "max_tokens"), List.copyOf(settings.samplingParams().keySet()));
        assertEquals(0.5, settings.samplingParams().get("temperature"));
    }

    @Test
    void refusesAFileAsTheResultsFolder(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("f"), "x");
        assertThrows(NotDirectoryException.class, () -> CorrectnessResultWriter.write(sample(), file, TIMESTAMP));
    }
}
