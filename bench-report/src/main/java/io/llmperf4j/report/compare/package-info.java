/**
 * {@code compare}: two runs' per-request metrics side by side (the same view as the summary), bootstrap confidence
 * intervals and fail-if rules for CI gates.
 */
package io.llmperf4j.report.compare;
