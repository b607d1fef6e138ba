/**
 * {@code requests.jsonl}: every request record, one line each, flushed as it ends; read back with the line of
 * anything half-written or corrupt named.
 */
package io.llmperf4j.report.jsonl;
