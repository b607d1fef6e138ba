/**
 * Scraping a server's {@code /metrics} during a run ({@link io.llmperf4j.servermetrics.scrape.ServerMetricsScraper})
 * and asking once whether a URL serves Prometheus text ({@link io.llmperf4j.servermetrics.scrape.MetricsProbe}, for
 * {@code doctor}).
 *
 * <p>The scraper never touches the benchmark's I/O: it has its own daemon thread, its own connection
 * (a blocking socket read on that thread, its responses parsed by Netty's HTTP decoder; TLS classes are loaded only
 * for an https URL) and its own timeout. A scrape that fails, stalls past the timeout, answers
 * non-200, or serves malformed text is recorded as a gap with its reason and reported as a warning; it never
 * throws into the run. The API key goes to the metrics URL only when that URL has the endpoint's origin (scheme,
 * host and port), so a key for the model API is never handed to another host.
 */
package io.llmperf4j.servermetrics.scrape;
