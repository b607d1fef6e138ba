package io.llmperf4j.report.llmperf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LlmperfFileNamesTest {

    /** Expectations from Python: re.sub(r"-{2,}", "-", re.sub(r"[^\w\d-]+", "-", name)). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "meta-llama/Llama-2-7b-chat-hf_550_150 | meta-llama-Llama-2-7b-chat-hf_550_150",
            "gpt-3.5-turbo_550_150                 | gpt-3-5-turbo_550_150",
            "/models//llama 3:8b_1_2               | -models-llama-3-8b_1_2",
            "a--b---c_1_2                          | a-b-c_1_2",
            "tail.._1_2.                           | tail-_1_2-",
            "Qwen/Qwen2.5-7B-Instruct@main_550_150 | Qwen-Qwen2-5-7B-Instruct-main_550_150",
            "caf\u00e9/\u6a21\u578b\u00b2\u2167_550_150 | caf\u00e9-\u6a21\u578b\u00b2\u2167_550_150",
            "e\u0301 x\u203fy_1_2                    | e-x-y_1_2",
    })
    void sanitizesLikeLlmperf(String name, String expected) {
        assertEquals(expected, LlmperfFileNames.sanitize(name));
    }

    @Test
    void fileNamesOfARun() {
        var settings = SampleRuns.settings("meta-llama/Llama-2-7b-chat-hf", Map.of(), Map.of());
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150", LlmperfFileNames.baseName(settings));
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150_summary.json", LlmperfFileNames.summaryFileName(settings));
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150_individual_responses.json",
                LlmperfFileNames.individualResponsesFileName(settings));
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150_requests.csv",
                LlmperfFileNames.requestsCsvFileName(settings));
    }
}
