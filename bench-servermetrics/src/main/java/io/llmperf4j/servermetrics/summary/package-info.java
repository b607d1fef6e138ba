/**
 * What the server says about the measured window, beside what the client measured: {@link
 * io.llmperf4j.servermetrics.summary.ServerSideSummarizer} turns a timeline into a {@link
 * io.llmperf4j.servermetrics.summary.ServerSideSummary} (peaks of gauges, increases of counters, latency quantiles
 * from histogram bucket increases), and {@link io.llmperf4j.servermetrics.summary.ServerTimeSeries} gives the same
 * families per scrape, for charts on the client's time axis.
 *
 * <p>The trap: every counter and histogram a server exposes counts from its own start, not the run's. Reading the
 * values at the end of a run mixes in every earlier run and warmup. Everything here is an increase between
 * scrapes, summed pair by pair so that a counter reset (a server restart) counts what came after it instead of going
 * negative: for counters, only the share of each pair's interval inside the window (linear interpolation to the
 * window's edges); for histograms, whole requests between the scrapes that bracket the window.
 */
package io.llmperf4j.servermetrics.summary;
