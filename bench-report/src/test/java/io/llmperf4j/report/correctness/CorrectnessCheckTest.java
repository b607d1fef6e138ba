package io.llmperf4j.report.correctness;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CorrectnessCheckTest {

    /** Expected values printed by CPython 3.11 running llmperf's two regular expressions on the same texts. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "'The number is 1,234.'|1234|true|'The number is 1234.'",
        "'1234'|1234|true|'1234'",
        "'12345'|1234|false|'12345'",
        "'1234.5'|1234|true|'1234.5'",
        "'1,2,3,4'|1234|true|'1234'",
        "'1, 234'|1234|false|'1, 234'",
        "'one thousand'|1234|false|'one thousand'",
        "''|0|false|''",
        "'0'|0|true|'0'",
        "'00'|0|false|'00'",
        "'x10000y'|10000|true|'x10000y'",
        "'١٢٣٤'|1234|false|'١٢٣٤'",
        "'1２34'|1234|false|'1２34'",
        "'12,34'|1234|true|'1234'",
        "'1,234,567'|234|false|'1234567'",
        "'1,234,567'|1234567|true|'1234567'",
        "'-5'|5|true|'-5'",
        "'5,'|5|true|'5,'",
        "'1234 or 1,235'|1235|true|'1234 or 1235'",
    })
    void llmperfsRegularExpressions(String text, long expected, boolean passes, String shown) {
        assertEquals(passes, CorrectnessCheck.containsNumber(text, expected));
        assertEquals(shown, CorrectnessCheck.mismatchDisplayText(text));
    }

    @Test
    void newlinesBecomeSpacesOnlyInWhatIsPrinted() {
        assertEquals("1234 5", CorrectnessCheck.mismatchDisplayText("1,234\n5"));
        assertEquals(true, CorrectnessCheck.containsNumber("1,234\n5", 1234));
    }

    @Test
    void erroredMeansATruthyErrorCode() {
        assertEquals(CorrectnessOutcome.ERRORED, CorrectnessCheck.outcome(
                record("7", new Failure(FailureKind.HTTP_STATUS, 429, "slow down")), 7));
        assertEquals(CorrectnessOutcome.ERRORED, CorrectnessCheck.outcome(
                record("7", new Failure(FailureKind.CANCELLED, -1, "cancelled")), 7));
        // error_code 0 is falsy in llmperf: the text is checked like any other
        assertEquals(CorrectnessOutcome.PASSED, CorrectnessCheck.outcome(
                record("7", new Failure(FailureKind.ERROR_IN_STREAM, 0, "odd")), 7));
        assertEquals(CorrectnessOutcome.PASSED, CorrectnessCheck.outcome(record("It is 7.", null), 7));
        assertEquals(CorrectnessOutcome.MISMATCHED, CorrectnessCheck.outcome(record("It is 8.", null), 7));
    }

    private static RequestRecord record(String text, Failure failure) {
        return new RequestRecord(0, "id", null, 0, 1, 1, 2, 1, new long[] {1}, text, 0, 0, -1, null, null, null,
                failure);
    }
}
