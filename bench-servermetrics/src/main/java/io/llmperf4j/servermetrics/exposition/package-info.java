/**
 * Prometheus text exposition format 0.0.4 ({@code text/plain; version=0.0.4}) and OpenMetrics 1.0 text
 * ({@code application/openmetrics-text; version=1.0.0}): a strict parser ({@link
 * io.llmperf4j.servermetrics.exposition.ExpositionParser}) into immutable families and samples, and a writer of
 * 0.0.4 text ({@link io.llmperf4j.servermetrics.exposition.ExpositionWriter}).
 *
 * <p>Why our own parser: Maven Central has no well-kept Java parser of these formats. The official Java client
 * ({@code io.prometheus:prometheus-metrics-*} 1.x) only <em>writes</em> them ({@code PrometheusTextFormatWriter},
 * {@code OpenMetricsTextFormatWriter}, protobuf); the reference parsers are Go ({@code prometheus/common/expfmt},
 * {@code prometheus/model/textparse}) and Python ({@code prometheus_client.parser}). This one follows the
 * published grammars and is tested line form by line form.
 *
 * <p>Strict means: a line the format does not allow is an {@link
 * io.llmperf4j.servermetrics.exposition.MalformedExpositionException} naming the line number and the reason, never
 * a silently dropped sample. What the formats allow is accepted as they allow it: in 0.0.4 blanks and tabs between
 * tokens, blank lines, free comments, a trailing comma in label sets and a missing final newline; in OpenMetrics
 * exemplars (skipped) and {@code _created} samples (kept). Histograms are checked (every series has a
 * {@code le="+Inf"} bucket, buckets are cumulative, {@code _count} equals the {@code +Inf} bucket), because a
 * quantile computed from a broken histogram would be silently wrong.
 */
package io.llmperf4j.servermetrics.exposition;
