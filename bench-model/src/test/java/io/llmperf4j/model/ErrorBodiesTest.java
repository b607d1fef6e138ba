package io.llmperf4j.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** One-line error bodies: the server's message when the body holds one, else a page's words, short. */
class ErrorBodiesTest {

    /** Python's http.server's error page (python3 -m http.server answering a POST). */
    private static final String PYTHON_501 = """
            <!DOCTYPE HTML>
            <html lang="en">
                <head>
                    <meta charset="utf-8">
                    <title>Error response</title>
                </head>
                <body>
                    <h1>Error response</h1>
                    <p>Error code: 501</p>
                    <p>Message: Unsupported method (&#x27;POST&#x27;).</p>
                    <p>Error code explanation: 501 - Server does not support this operation.</p>
                </body>
            </html>
            """;

    @Test
    void anHtmlPageIsItsWordsWithoutTheHeadCutAtAHundredAndTwentyCharacters() {
        String line = ErrorBodies.oneLine(PYTHON_501, 300);
        assertEquals("Error response Error code: 501 Message: Unsupported method ('POST'). Error code explanation: "
                + "501 - Server does not suppo...", line);
        assertEquals(ErrorBodies.BODY_CHARS + 3, line.length());
    }

    @Test
    void aJsonMessageIsKeptWholeUpToTheCallersLimitAndShortTextAsItIs() {
        String message = "x".repeat(200);
        assertEquals(message, ErrorBodies.oneLine("{\"error\":{\"message\":\"" + message + "\"}}", 300));
        assertEquals("x".repeat(50) + "...", ErrorBodies.oneLine("{\"message\":\"" + message + "\"}", 50));
        assertEquals("404 page not found", ErrorBodies.oneLine("404 page not found\n", 300));
        assertEquals("a < b", ErrorBodies.oneLine("a < b", 300));
        // a server's ANSI escape or NUL is quoted, never passed to the terminal or the warnings (QA s44)
        assertEquals("engine \\x1b[31mexploded\\x1b[0m \\x00 here", ErrorBodies.oneLine(
                "{\"error\":{\"message\":\"engine \\u001b[31mexploded\\u001b[0m \\u0000 here\"}}", 300));
        assertEquals("", ErrorBodies.oneLine(null, 300));
    }
}
