/**
 * llmperf4j's summary file ({@code <base>_llmperf4j_summary.json}, its JSON Schema beside this package) and console
 * table, both read from {@code RunMetrics}; the redaction of endpoints and keys they share.
 */
package io.llmperf4j.report.summary;
