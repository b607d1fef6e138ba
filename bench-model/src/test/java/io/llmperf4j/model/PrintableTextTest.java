package io.llmperf4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PrintableTextTest {

    @Test
    void controlCharactersAreEscapedAndTheRestKept() {
        assertEquals("<html>\\x00\\x01 a\\tb\\r\\n\\x1b[31mred\\x7f\\x9b é € 日本",
                PrintableText.of("<html>\u0000\u0001 a\tb\r\n\u001b[31mred\u007f\u009b é € 日本"));
        assertEquals("abc\\u202edcba\\u2028", PrintableText.of("abc\u202edcba\u2028"), "bidi override, separator");
        assertEquals("null", PrintableText.of(null));
    }

    @Test
    void longTextIsCutWithAnEllipsisNeverInsideAnEscape() {
        assertEquals("abcde", PrintableText.quote("abcde", 5));
        assertEquals("abcd…", PrintableText.quote("abcdef", 4));
        assertEquals("ab…", PrintableText.quote("ab\u0000cd", 5), "\\x00 does not fit in the 3 left: not cut in two");
        assertEquals("ab\\x00…", PrintableText.quote("ab\u0000cd", 6));
    }
}
