package io.llmperf4j.servermetrics.scrape;

import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import java.time.Duration;

/**
 * Whether a URL serves Prometheus text, for {@code doctor}.
 *
 * @param url          the URL asked, without user info or query
 * @param ok           true when it answered 200 with exposition text that parsed
 * @param httpStatus   the status, or null when there was no answer
 * @param format       the format it served, or null
 * @param families     families served (0 unless ok)
 * @param samples      samples served (0 unless ok)
 * @param engine       the engine its family names point to, or null
 * @param sentCredentials whether credentials went with it: the run's key and --header values (same origin as the
 *                     endpoint), or --server-metrics-header values
 * @param detail       one line for the user: what was found, or why not
 * @param waited       how long the check waited for the server, connect to the answer's last byte: at most its
 *                     timeout (the answer came within it; parsing and this process's own delays are not counted);
 *                     null when there was no answer (then {@code detail} says why: "timed out after 2 s")
 */
public record ProbeResult(String url, boolean ok, Integer httpStatus, ExpositionFormat format, int families,
                          int samples, ServerEngine engine, boolean sentCredentials, String detail, Duration waited) {
}
