package io.llmperf4j.model;

import java.util.Objects;

/**
 * A request failure in llmperf's terms plus its kind.
 *
 * @param kind    the classification
 * @param code    llmperf's {@code error_code}: the HTTP status, the stream error object's numeric code, or -1
 * @param message llmperf's {@code error_msg}: the response body, the error object's message, or what happened;
 *                never contains credentials
 */
public record Failure(FailureKind kind, int code, String message) {
    public Failure {
        Objects.requireNonNull(kind, "kind");
        message = message == null ? "" : message;
    }

    /**
     * {@code words} (this failure's message, as a summary line words it) after its code, e.g. "429 Rate limit
     * exceeded": the code once. The words alone when there is no code, or when they name the status already: the
     * client's own words ("HTTP 302 redirect to ...", "the HTTP 500 response from ...") or a page that starts with it
     * ("502 Bad Gateway nginx").
     */
    public String withCode(String words) {
        if (code <= 0) return words;
        String status = String.valueOf(code);
        if (words.isEmpty()) return status;
        boolean named = namesStatus(words, "HTTP " + status) || words.equals(status) || words.startsWith(status + " ");
        return named ? words : status + " " + words;
    }

    /**
     * Whether this is a status whose message the client wrote instead of the response's body, to be quoted whole (its
     * end is the hint): a redirect (3xx, "HTTP 308 redirect to ..."), or a body the client could not read ("the HTTP
     * 502 response from host:port is compressed (Content-Encoding: br) ...", "... said Content-Encoding: gzip but its
     * body is not gzip data ...").
     */
    public boolean clientWorded() {
        return kind == FailureKind.HTTP_STATUS && (code >= 300 && code < 400
                || message.startsWith("the HTTP " + code + " response from "));
    }

    /** Whether {@code words} hold {@code httpStatus} ("HTTP 502") as a whole number, not the start of a longer one. */
    private static boolean namesStatus(String words, String httpStatus) {
        for (int at = words.indexOf(httpStatus); at >= 0; at = words.indexOf(httpStatus, at + 1)) {
            int after = at + httpStatus.length();
            if (after == words.length() || !Character.isDigit(words.charAt(after))) return true;
        }
        return false;
    }
}
