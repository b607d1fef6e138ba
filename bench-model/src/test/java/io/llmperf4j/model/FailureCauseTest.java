package io.llmperf4j.model;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The one rule of what a failure points at, by its kind, code and whether the server had streamed tokens before it.
 * QA s44: vLLM's mid-stream error event, code 400 for any exception in its generator, was the configuration's.
 */
class FailureCauseTest {

    @ParameterizedTest(name = "{0} {1}, after tokens {2}: {3}")
    @CsvSource({
            // an error event after tokens: the server failing while serving, whatever its code
            "ERROR_IN_STREAM, 400, true, CAPACITY",
            "ERROR_IN_STREAM, 404, true, CAPACITY",
            "ERROR_IN_STREAM, 500, true, CAPACITY",
            "ERROR_IN_STREAM, -1, true, OTHER",
            // as the stream's first event: its code as a status's
            "ERROR_IN_STREAM, 400, false, CONFIGURATION",
            "ERROR_IN_STREAM, 429, false, CAPACITY",
            "ERROR_IN_STREAM, 503, false, CAPACITY",
            "ERROR_IN_STREAM, -1, false, OTHER",
            // a status is a status: a stream never began
            "HTTP_STATUS, 400, false, CONFIGURATION",
            "HTTP_STATUS, 308, false, CONFIGURATION",
            "HTTP_STATUS, 408, false, CAPACITY",
            "CONNECTION_CLOSED, -1, true, CAPACITY",
            "MALFORMED_EVENT, -1, true, OTHER"})
    void aFailureIsReadByItsKindCodeAndTheTokensBeforeIt(FailureKind kind, int code, boolean afterTokens,
                                                         FailureCause cause) {
        assertEquals(cause, FailureCause.of(kind, code, afterTokens));
        if (!afterTokens) assertEquals(cause, FailureCause.of(kind, code), "without context: no tokens");
    }
}
