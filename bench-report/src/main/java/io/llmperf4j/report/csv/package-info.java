/** The per-request CSV (written and read back, timing phases included) and the per-event CSV. */
package io.llmperf4j.report.csv;
