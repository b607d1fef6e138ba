package io.llmperf4j.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class RetryAfterTest {

    private static final String BODY = "{\"error\":{\"message\":\"Rate limit exceeded\"}}";

    @Test
    void theNoteIsReadBackAndLeftOutOfTheServersWords() {
        String message = BODY + RetryAfter.note("7");
        assertEquals(BODY + " [Retry-After: 7]", message); // llmperf's error_msg, as the files keep it
        assertEquals("7", RetryAfter.valueIn(message));
        assertEquals(BODY, RetryAfter.without(message));
        assertNull(RetryAfter.valueIn(BODY));
        assertEquals(BODY, RetryAfter.without(BODY));
        assertNull(RetryAfter.valueIn("[Retry-After: 7] then more words"), "only a note that ends the message");
    }

    @Test
    void theConsoleSaysTheRangeSeenAndThatNothingWasRetried() {
        RetryAfter.Range seconds = new RetryAfter.Range();
        for (String v : new String[]{"7", "3", "7", "5"}) seconds.addFrom(BODY + RetryAfter.note(v));
        assertEquals(" [Retry-After: 3-7 s; not retried]", RetryAfter.consoleNote(429, seconds));
        assertEquals(" [Retry-After: 3-7 s; not retried]", RetryAfter.consoleNote(503, seconds));
        seconds.addFrom(BODY); // one without the header: counted, adds no value
        assertEquals(" [4 with Retry-After: 3-7 s; not retried]", RetryAfter.consoleNote(429, seconds));
        assertEquals(" [not retried]", RetryAfter.consoleNote(429, new RetryAfter.Range()));
        assertEquals("", RetryAfter.consoleNote(500, new RetryAfter.Range()));

        RetryAfter.Range date = new RetryAfter.Range().addFrom("busy" + RetryAfter.note("Wed, 21 Oct 2026 07:28:00 GMT"));
        assertEquals(" [Retry-After: Wed, 21 Oct 2026 07:28:00 GMT; not retried]", RetryAfter.consoleNote(503, date));
        date.addFrom("busy" + RetryAfter.note("Wed, 21 Oct 2026 07:28:00 GMT"));
        assertEquals("Wed, 21 Oct 2026 07:28:00 GMT", date.toString(), "the same date twice is one");
        date.addFrom("busy" + RetryAfter.note("Thu, 22 Oct 2026 07:28:00 GMT"));
        assertEquals("Wed, 21 Oct 2026 07:28:00 GMT and others", date.toString());
    }

    @Test
    void aTallyByStatusGivesEachStatusTheConsolesNote() {
        RetryAfter.Tally tally = new RetryAfter.Tally();
        assertEquals("", tally.toString());
        tally.add("request timeout", 0, "no answer in 60 s");
        for (String v : new String[]{"7", "3", "5"}) tally.add("429", 429, BODY + RetryAfter.note(v));
        tally.add("429", 429, BODY); // one without the header: counted, adds no value
        tally.add("503", 503, "busy");
        tally.add("503", 503, "busy" + RetryAfter.note("2"));
        assertEquals("4x 429 [3 with Retry-After: 3-7 s; not retried], 2x 503 [1 with Retry-After: 2 s; not "
                + "retried], 1x request timeout", tally.toString());
        assertEquals("2x 429 [not retried]", new RetryAfter.Tally().add("429", 429, BODY).add("429", 429, null)
                .toString(), "a 429 without the header is still not retried");
        assertEquals("1x 500, 1x 502", new RetryAfter.Tally().add("500", 500, "x").add("502", 502, "y").toString(),
                "equal counts keep the order first seen");
        assertEquals("4x 429 [3 with Retry-After: 3-7 s; not retried]", tally.mostCommon());
        assertEquals("", new RetryAfter.Tally().mostCommon());
    }

    /**
     * QA (faults): 8 429s of which 3 sent "Retry-After: 7" read "8x 429 [Retry-After: 7 s; not retried]", as if all
     * 8 had; a sweep level's 3 with 1 likewise. Now each says how many carried it.
     */
    @Test
    void aTallySaysHowManyCarriedTheHeaderWhenNotAllDid() {
        RetryAfter.Tally tally = new RetryAfter.Tally();
        for (int i = 0; i < 8; i++) tally.add("429", 429, i % 3 == 0 ? BODY + RetryAfter.note("7") : BODY);
        assertEquals("8x 429 [3 with Retry-After: 7 s; not retried]", tally.toString());
        RetryAfter.Tally level = new RetryAfter.Tally().add("429", 429, BODY)
                .add("429", 429, BODY + RetryAfter.note("7")).add("429", 429, BODY);
        assertEquals("3x 429 [1 with Retry-After: 7 s; not retried]", level.mostCommon());
        RetryAfter.Tally all = new RetryAfter.Tally().add("429", 429, BODY + RetryAfter.note("7"))
                .add("429", 429, BODY + RetryAfter.note("7"));
        assertEquals("2x 429 [Retry-After: 7 s; not retried]", all.toString(), "all carried it: no count");
        assertEquals("2x 429 [1 with Retry-After: 7 s; not retried]", new RetryAfter.Tally()
                .add("429", 429, BODY + RetryAfter.note("")).add("429", 429, BODY + RetryAfter.note("7")).toString(),
                "an empty header is no value");
    }
}
