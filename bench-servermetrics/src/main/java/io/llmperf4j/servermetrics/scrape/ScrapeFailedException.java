package io.llmperf4j.servermetrics.scrape;

/** One scrape failed; the message is the reason as it goes into the timeline (never the key, never the URL's user info). */
final class ScrapeFailedException extends Exception {

    private final Integer httpStatus;
    private final String contentType;

    ScrapeFailedException(String reason) {
        this(reason, null, null);
    }

    ScrapeFailedException(String reason, Integer httpStatus, String contentType) {
        super(reason, null, false, false);
        this.httpStatus = httpStatus;
        this.contentType = contentType;
    }

    /** The HTTP status when the server answered, else null. */
    Integer httpStatus() {
        return httpStatus;
    }

    /** The Content-Type when the server answered, else null. */
    String contentType() {
        return contentType;
    }
}
