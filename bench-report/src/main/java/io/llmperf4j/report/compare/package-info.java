/**
 * {@code compare}: two runs' per-request metrics side by side (the same view as the summary), bootstrap confidence
 * intervals and fail-if rules for CI gates; sweeps and comparisons of models unit by unit, and JMH-style iterations
 * by their per-iteration means with Welch's t intervals.
 */
package io.llmperf4j.report.compare;
