/**
 * The embeddings benchmark's results ({@code --llm-api embeddings}): a level's summary (latency percentiles,
 * inputs/s, input tokens/s, errors by kind) with its JSON and per-request CSV, and a sweep's table of levels.
 */
package io.llmperf4j.report.embeddings;
