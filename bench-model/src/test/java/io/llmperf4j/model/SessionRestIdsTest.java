package io.llmperf4j.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A failed session's rest is named and read back by one format: {@code <session>~t<turn>}. */
class SessionRestIdsTest {
    @Test
    void aRestNamesItsWorkloadSessionAndTheTurnItBeginsAt() {
        String rest = SessionRestIds.rest("s0", 2);
        assertEquals("s0~t2", rest);
        assertEquals("s0", SessionRestIds.workloadSession(rest));
        assertEquals(2, SessionRestIds.firstTurn(rest));
    }

    @Test
    void aSessionsOwnIdIsItsWorkloadSessionFromTurnZero() {
        assertEquals("conv-7", SessionRestIds.workloadSession("conv-7"));
        assertEquals(0, SessionRestIds.firstTurn("conv-7"));
        assertEquals("a~tb", SessionRestIds.workloadSession("a~tb")); // no turn number: not a rest
        assertEquals(0, SessionRestIds.firstTurn("a~tb"));
    }
}
