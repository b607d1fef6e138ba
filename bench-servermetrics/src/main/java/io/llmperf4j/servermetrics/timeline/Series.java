package io.llmperf4j.servermetrics.timeline;

import io.llmperf4j.servermetrics.exposition.Labels;
import io.llmperf4j.servermetrics.exposition.MetricType;

/**
 * One time series: a sample name and a label set, as the server first served it.
 *
 * @param id     its index in {@link ServerMetricsTimeline#series()}
 * @param name   the sample name, suffix included ({@code vllm:generation_tokens_total}, {@code x_bucket})
 * @param labels its labels
 * @param family the family it was served in
 * @param type   that family's type
 */
public record Series(int id, String name, Labels labels, String family, MetricType type) {
}
