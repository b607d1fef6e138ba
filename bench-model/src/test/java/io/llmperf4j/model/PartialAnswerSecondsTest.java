package io.llmperf4j.model;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A silence reads in tenths, rounded before the whole-second check: CI's pre-run check measured exactly 1,000 ms of
 * silence and read "1 s" where 999 ms read "1.0 s", and a test expecting tenths failed on the one and not the other.
 */
class PartialAnswerSecondsTest {
    @Test
    void wholeSecondsDropTheTenthWhicheverSideTheyWereRoundedFrom() {
        assertEquals("1 s", PartialAnswer.seconds(Duration.ofMillis(999)));
        assertEquals("1 s", PartialAnswer.seconds(Duration.ofMillis(1000)));
        assertEquals("1 s", PartialAnswer.seconds(Duration.ofMillis(1040)));
        assertEquals("3 s", PartialAnswer.seconds(Duration.ofSeconds(3)));
    }

    @Test
    void otherDurationsReadInTenths() {
        assertEquals("2.9 s", PartialAnswer.seconds(Duration.ofMillis(2900)));
        assertEquals("2.9 s", PartialAnswer.seconds(Duration.ofMillis(2949)));
        assertEquals("1.1 s", PartialAnswer.seconds(Duration.ofMillis(1050)));
        assertEquals("0.4 s", PartialAnswer.seconds(Duration.ofMillis(400)));
    }
}
