/** The tidy {@code <base>_server_metrics.csv}: one row per sample per scrape. */
package io.llmperf4j.servermetrics.csv;
