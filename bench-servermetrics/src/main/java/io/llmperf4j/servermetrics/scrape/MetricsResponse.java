package io.llmperf4j.servermetrics.scrape;

/**
 * One HTTP response to a metrics GET, whole.
 *
 * @param status      the status code
 * @param contentType the Content-Type header, or null
 * @param location    the Location header, or null
 * @param body        the body, at most the config's {@code maxBodyBytes}
 * @param reusable    true when the connection may carry the next request (keep-alive, and the body's end was not
 *                    the connection's)
 */
record MetricsResponse(int status, String contentType, String location, byte[] body, boolean reusable) {
}
