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
        seconds.addFrom(BODY); // one without the header adds nothing
        assertEquals(" [Retry-After: 3-7 s; not retried]", RetryAfter.consoleNote(429, seconds));
        assertEquals(" [Retry-After: 3-7 s; not retried]", RetryAfter.consoleNote(503, seconds));
        assertEquals(" [not retried]", RetryAfter.consoleNote(429, new RetryAfter.Range()));
        assertEquals("", RetryAfter.consoleNote(500, new RetryAfter.Range()));

        RetryAfter.Range date = new RetryAfter.Range().addFrom("busy" + RetryAfter.note("Wed, 21 Oct 2026 07:28:00 GMT"));
        assertEquals(" [Retry-After: Wed, 21 Oct 2026 07:28:00 GMT; not retried]", RetryAfter.consoleNote(503, date));
        date.addFrom("busy" + RetryAfter.note("Wed, 21 Oct 2026 07:28:00 GMT"));
        assertEquals("Wed, 21 Oct 2026 07:28:00 GMT", date.toString(), "the same date twice is one");
        date.addFrom("busy" + RetryAfter.note("Thu, 22 Oct 2026 07:28:00 GMT"));
        assertEquals("Wed, 21 Oct 2026 07:28:00 GMT and others", date.toString());
    }
}
