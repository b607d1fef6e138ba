package io.llmperf4j.llama;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stop strings over streamed text: nothing of a stop string is handed on, the text before it all is. */
class StopTextTest {

    private static List<String> feed(StopText text, String... pieces) {
        List<String> out = new ArrayList<>();
        for (String piece : pieces) {
            if (text.stopped()) break;
            out.add(text.accept(piece));
        }
        if (!text.stopped()) out.add(text.rest());
        return out;
    }

    @Test
    void aStopStringSplitOverPiecesIsHeldBackThenDropped() {
        StopText text = new StopText(List.of("HTTP"));

        assertEquals(List.of("the", " JSON", " via ", ""), feed(text, "the", " JSON", " via H", "TTP", " servers"));
        assertTrue(text.stopped());
        assertEquals("the JSON via HTTP", text.generatedThroughStop());
    }

    @Test
    void heldTextThatTurnsOutNoStopIsHandedOn() {
        StopText text = new StopText(List.of("HTTP"));

        assertEquals(List.of("the", " ", "HT servers", ""), feed(text, "the", " HT", " servers"));
        assertFalse(text.stopped());
        assertEquals(List.of("the", " ", "HT"), feed(new StopText(List.of("HTTP")), "the", " HT"),
                "at the end, the held text is the rest");
    }

    @Test
    void theEarliestOfSeveralStopStringsWins() {
        StopText text = new StopText(List.of("servers", "tokens"));

        assertEquals(List.of("the JSON "), feed(text, "the JSON tokens stream servers"));
        assertEquals("the JSON tokens", text.generatedThroughStop());
    }

    @Test
    void withoutStopStringsEverythingPassesAtOnce() {
        StopText text = new StopText(List.of());

        assertEquals(List.of("the", " JSON", ""), feed(text, "the", " JSON"));
        assertFalse(text.stopped());
    }
}
