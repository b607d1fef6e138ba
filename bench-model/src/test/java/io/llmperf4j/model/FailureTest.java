package io.llmperf4j.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A failure's words in a summary line carry its status once (QA: "2x 302 HTTP 302 redirect ..."). */
class FailureTest {

    private static String withCode(int code, String words) {
        return new Failure(FailureKind.HTTP_STATUS, code, words).withCode(words);
    }

    @Test
    void theStatusComesBeforeTheServersWords() {
        assertEquals("429 Rate limit exceeded", withCode(429, "Rate limit exceeded"));
        assertEquals("500", withCode(500, ""));
        assertEquals("no code", withCode(-1, "no code"));
        assertEquals("503 upstream 5030 busy", withCode(503, "upstream 5030 busy"));
    }

    @Test
    void aRedirectAndAnUnreadableBodyAreTheClientsWordsAndAServersBodyIsNot() {
        assertTrue(new Failure(FailureKind.HTTP_STATUS, 302, "HTTP 302 redirect to x").clientWorded());
        assertTrue(new Failure(FailureKind.HTTP_STATUS, 500, "the HTTP 500 response from h:1 said Content-Encoding: "
                + "gzip but its body is not gzip data (x)").clientWorded());
        assertFalse(new Failure(FailureKind.HTTP_STATUS, 500, "{\"error\":{\"message\":\"boom\"}}").clientWorded());
        assertFalse(new Failure(FailureKind.HTTP_STATUS, 502, "the HTTP 500 response from h:1").clientWorded());
        assertFalse(new Failure(FailureKind.ERROR_IN_STREAM, 302, "HTTP 302").clientWorded());
    }

    @Test
    void wordsThatNameTheStatusAreNotPrefixedAgain() {
        assertEquals("HTTP 302 redirect to https://gw/v2 (the client does not follow redirects)",
                withCode(302, "HTTP 302 redirect to https://gw/v2 (the client does not follow redirects)"));
        assertEquals("the HTTP 500 response from h:1 said Content-Encoding: gzip but its body is not gzip data (x)",
                withCode(500, "the HTTP 500 response from h:1 said Content-Encoding: gzip but its body is not gzip "
                        + "data (x)"));
        assertEquals("HTTP 503 with an empty body", withCode(503, "HTTP 503 with an empty body"));
        assertEquals("502 Bad Gateway nginx", withCode(502, "502 Bad Gateway nginx"));
        assertEquals("502 HTTP 5020 is another number", withCode(502, "HTTP 5020 is another number"));
    }
}
