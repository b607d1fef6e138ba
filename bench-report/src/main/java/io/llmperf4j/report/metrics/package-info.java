/**
 * llmperf4j's own metrics: the one per-request view ({@code RequestMetrics}, derived once from a raw record), its
 * timing phases, the run-level figures, warnings, goodput and SLOs. Percentiles are bench-model's one definition
 * ({@code io.llmperf4j.model.Percentiles}); see {@code bench-report/METRICS.md}.
 */
package io.llmperf4j.report.metrics;
